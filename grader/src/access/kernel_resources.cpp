// Registers, local and static shared memory of a solution's GPU build, for CPU execution mode (kernel_resources.h).
#include "gpulab/kernel_resources.h"

#include "gpulab/child_spawn.h"
#include "gpulab/demangle.h"
#include "gpulab/lab_config.h"
#include "gpulab/program_on_path.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace gpulab {
namespace kernel_resources_detail {

namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

// ---- ELF (64-bit little-endian: the libraries and the cubins in them) -----------------------------------------

template <typename T>
T at(const std::string& bytes, std::size_t offset) {
    T value{};
    if (offset + sizeof(T) <= bytes.size()) std::memcpy(&value, bytes.data() + offset, sizeof(T));
    return value;
}

struct Section {
    std::string name;
    std::uint32_t type = 0, link = 0, info = 0;
    std::uint64_t offset = 0, size = 0;
    std::string contents(const std::string& elf) const {
        if (type == 8 /* SHT_NOBITS */ || offset > elf.size()) return "";
        return elf.substr(offset, std::min<std::uint64_t>(size, elf.size() - offset));
    }
};

bool is_elf64(const std::string& bytes) { return bytes.size() > 64 && bytes.compare(0, 4, "\x7f" "ELF") == 0 && bytes[4] == 2; }

std::vector<Section> sections_of(const std::string& elf) {
    std::vector<Section> out;
    if (!is_elf64(elf)) return out;
    const auto shoff = at<std::uint64_t>(elf, 0x28);
    const auto shentsize = at<std::uint16_t>(elf, 0x3a), shnum = at<std::uint16_t>(elf, 0x3c),
               shstrndx = at<std::uint16_t>(elf, 0x3e);
    if (shentsize < 64 || shoff + std::uint64_t(shnum) * shentsize > elf.size()) return out;
    for (unsigned i = 0; i < shnum; ++i) {
        const std::size_t h = shoff + std::size_t(i) * shentsize;
        Section s;
        s.name = std::to_string(at<std::uint32_t>(elf, h));  // resolved below
        s.type = at<std::uint32_t>(elf, h + 4);
        s.offset = at<std::uint64_t>(elf, h + 24);
        s.size = at<std::uint64_t>(elf, h + 32);
        s.link = at<std::uint32_t>(elf, h + 40);
        s.info = at<std::uint32_t>(elf, h + 44);
        out.push_back(s);
    }
    if (shstrndx >= out.size()) return {};
    const std::string names = out[shstrndx].contents(elf);
    for (Section& s : out) {
        const std::size_t n = std::stoul(s.name);
        s.name = n < names.size() ? std::string(names.c_str() + n) : "";
    }
    return out;
}

struct Symbol {
    std::string name;
    std::uint64_t value = 0;
    unsigned char type = 0;
};

std::vector<Symbol> symbols_of(const std::string& elf, const std::vector<Section>& sections) {
    std::vector<Symbol> out;
    for (const Section& s : sections) {
        if (s.type != 2 /* SHT_SYMTAB */ || s.link >= sections.size()) continue;
        const std::string table = s.contents(elf), names = sections[s.link].contents(elf);
        for (std::size_t o = 0; o + 24 <= table.size(); o += 24) {
            Symbol sym;
            const auto n = at<std::uint32_t>(table, o);
            sym.name = n < names.size() ? std::string(names.c_str() + n) : "";
            sym.type = at<unsigned char>(table, o + 4) & 0xf;
            sym.value = at<std::uint64_t>(table, o + 8);
            out.push_back(sym);
        }
    }
    return out;
}

// ---- Cubins -------------------------------------------------------------------------------------------------

// What cuobjdump --dump-resource-usage prints, from the cubin's sections: a kernel's registers from the
// EIATTR_REGCOUNT attribute of .nv.info (older cubins: the top byte of its .text section's sh_info), its static shared
// memory as the size of .nv.shared.<kernel>, LOCAL as the size of .nv.local.<kernel>, and STACK from the
// EIATTR_MAX_STACK_SIZE (else EIATTR_FRAME_SIZE) attribute of .nv.info.
void read_cubin(const std::string& cubin, const std::string& arch, std::vector<KernelResources>& out) {
    const std::vector<Section> sections = sections_of(cubin);
    const std::vector<Symbol> symbols = symbols_of(cubin, sections);
    std::map<std::string, KernelResources> kernels;
    const std::string text = ".text.", shared = ".nv.shared.", local = ".nv.local.";
    for (const Section& s : sections) {
        if (s.name.rfind(text, 0) == 0) {
            KernelResources& k = kernels[s.name.substr(text.size())];
            k.registers = int(s.info >> 24);
        }
    }
    for (const Section& s : sections) {
        if (s.name.rfind(shared, 0) == 0 && kernels.count(s.name.substr(shared.size())))
            kernels[s.name.substr(shared.size())].shared_bytes = s.size;
        if (s.name.rfind(local, 0) == 0 && kernels.count(s.name.substr(local.size())))
            kernels[s.name.substr(local.size())].local_bytes = s.size;
    }
    // .nv.info: records of (format, attribute[, size or value][, data]); the stack sizes are (symbol, bytes) pairs.
    std::map<std::string, std::size_t> frame, max_stack, registers;
    for (const Section& s : sections) {
        if (s.name != ".nv.info") continue;
        const std::string info = s.contents(cubin);
        for (std::size_t o = 0; o + 2 <= info.size();) {
            const auto format = at<std::uint8_t>(info, o), attribute = at<std::uint8_t>(info, o + 1);
            o += 2;
            if (format == 0x01) continue;                  // no value
            if (format == 0x02) { o += 1; continue; }      // a byte
            if (format == 0x03) { o += 2; continue; }      // a half word
            if (format != 0x04) break;                     // unknown: stop reading
            const auto size = at<std::uint16_t>(info, o);
            o += 2;
            if ((attribute == 0x11 || attribute == 0x23 || attribute == 0x2f) && size >= 8) {
                const auto symbol = at<std::uint32_t>(info, o), value = at<std::uint32_t>(info, o + 4);
                auto& into = attribute == 0x11 ? frame : attribute == 0x23 ? max_stack : registers;
                if (symbol < symbols.size()) into[symbols[symbol].name] = value;
            }
            o += size;
        }
    }
    for (auto& [mangled, k] : kernels) {
        k.mangled = mangled;
        k.name = demangle(mangled);
        k.arch = arch;
        if (registers.count(mangled)) k.registers = int(registers[mangled]);
        if (max_stack.count(mangled)) k.stack_bytes = max_stack[mangled];
        else if (frame.count(mangled)) k.stack_bytes = frame[mangled];
        out.push_back(k);
    }
}

// libzstd, loaded when a cubin needs it (CUDA 13's nvcc compresses the fatbin's entries with zstd).
std::string unzstd(const std::string& frame, std::size_t decompressed_size, std::string& why) {
    using Decompress = std::size_t (*)(void*, std::size_t, const void*, std::size_t);
    using FrameSize = std::size_t (*)(const void*, std::size_t);
    using IsError = unsigned (*)(std::size_t);
    static void* const zstd = [] {
        void* h = ::dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
        return h ? h : ::dlopen("libzstd.so", RTLD_NOW | RTLD_LOCAL);
    }();
    if (!zstd) {
        why = "the fatbin's cubins are zstd-compressed and libzstd.so.1 cannot be loaded";
        return "";
    }
    const auto decompress = reinterpret_cast<Decompress>(::dlsym(zstd, "ZSTD_decompress"));
    const auto frame_size = reinterpret_cast<FrameSize>(::dlsym(zstd, "ZSTD_findFrameCompressedSize"));
    const auto is_error = reinterpret_cast<IsError>(::dlsym(zstd, "ZSTD_isError"));
    if (!decompress || !is_error) {
        why = "libzstd.so.1 lacks ZSTD_decompress";
        return "";
    }
    std::size_t length = frame.size();
    if (frame_size) {
        const std::size_t n = frame_size(frame.data(), frame.size());
        if (!is_error(n)) length = n;
    }
    std::string out(decompressed_size, '\0');
    const std::size_t n = decompress(out.data(), out.size(), frame.data(), length);
    if (is_error(n)) {
        why = "a cubin of the fatbin does not decompress";
        return "";
    }
    out.resize(n);
    return out;
}

}  // namespace kernel_resources_detail

using namespace kernel_resources_detail;

namespace {

// Several architectures: the course's GPUs' (sm_90, the occupancy the analysis computes), else the newest.
void keep_one_architecture(GpuBuildResources& r) {
    std::string best;
    for (const KernelResources& k : r.kernels) {
        if (k.arch == "sm_90") best = k.arch;
        if (best != "sm_90") {
            const auto number = [](const std::string& a) { return std::atoi(a.c_str() + std::min<std::size_t>(3, a.size())); };
            if (best.empty() || number(k.arch) > number(best)) best = k.arch;
        }
    }
    r.arch = best;
    r.kernels.erase(std::remove_if(r.kernels.begin(), r.kernels.end(),
                                   [&](const KernelResources& k) { return k.arch != best; }),
                    r.kernels.end());
}

}  // namespace

GpuBuildResources parse_cuobjdump_resource_usage(const std::string& text) {
    GpuBuildResources r;
    r.source = "cuobjdump --dump-resource-usage of the GPU build";
    std::istringstream lines(text);
    std::string line, arch, function;
    while (std::getline(lines, line)) {
        const std::size_t a = line.find("arch = ");
        if (a != std::string::npos) arch = line.substr(a + 7);
        const std::size_t f = line.find(" Function ");
        if (f != std::string::npos && !line.empty() && line.back() == ':') {
            function = line.substr(f + 10, line.size() - f - 11);
            continue;
        }
        if (function.empty() || line.find("REG:") == std::string::npos) continue;
        KernelResources k;
        k.mangled = function;
        k.name = demangle(function);
        k.arch = arch;
        std::istringstream fields(line);
        for (std::string field; fields >> field;) {
            const std::size_t colon = field.find(':');
            if (colon == std::string::npos) continue;
            const std::string key = field.substr(0, colon);
            const unsigned long long value = std::strtoull(field.c_str() + colon + 1, nullptr, 10);
            if (key == "REG") k.registers = int(value);
            else if (key == "STACK") k.stack_bytes = value;
            else if (key == "SHARED") k.shared_bytes = value;
            else if (key == "LOCAL") k.local_bytes = value;
        }
        r.kernels.push_back(k);
        function.clear();
    }
    keep_one_architecture(r);
    r.available = !r.kernels.empty();
    if (!r.available) r.why = "cuobjdump listed no kernel";
    return r;
}

std::vector<Cubin> cubins_of(const std::string& elf, std::string* why) {
    std::vector<Cubin> out;
    std::string fatbin, skipped;
    for (const Section& s : sections_of(elf))
        if (s.name == ".nv_fatbin") fatbin = s.contents(elf);
    if (fatbin.empty()) skipped = "the GPU build has no .nv_fatbin section";
    // Containers (one per compiled unit): magic 0xBA55ED50, version, header size, size of the entries; each entry
    // (kind 2: a cubin) gives its header size, payload size, architecture and, compressed, its size unpacked.
    for (std::size_t o = 0; o + 16 <= fatbin.size();) {
        if (at<std::uint32_t>(fatbin, o) != 0xBA55ED50u) {
            o += 8;  // containers are 8-byte aligned
            continue;
        }
        const auto header = at<std::uint16_t>(fatbin, o + 6);
        const auto size = at<std::uint64_t>(fatbin, o + 8);
        const std::size_t end = std::min<std::size_t>(fatbin.size(), o + header + size);
        for (std::size_t e = o + header; e + 0x40 <= end;) {
            const auto kind = at<std::uint16_t>(fatbin, e);
            const auto entry_header = at<std::uint32_t>(fatbin, e + 4);
            const auto payload_size = at<std::uint64_t>(fatbin, e + 8);
            const auto arch = at<std::uint32_t>(fatbin, e + 0x1c);
            const auto unpacked = at<std::uint64_t>(fatbin, e + 0x38);
            if (entry_header == 0 || e + entry_header + payload_size > end) break;
            if (kind == 2) {
                std::string payload = fatbin.substr(e + entry_header, payload_size), unzipped_why;
                if (payload.compare(0, 4, "\x28\xb5\x2f\xfd") == 0) payload = unzstd(payload, unpacked, unzipped_why);
                if (is_elf64(payload)) out.push_back({"sm_" + std::to_string(arch), std::move(payload)});
                else skipped = unzipped_why.empty() ? "a cubin in a form this reader does not know" : unzipped_why;
            }
            e += entry_header + payload_size;
        }
        o += header + size;
        o = (o + 7) / 8 * 8;
    }
    if (why) *why = out.empty() && skipped.empty() ? "the GPU build's fatbin holds no cubin" : skipped;
    return out;
}

std::vector<Cubin> cubins_in_library(const std::string& path, std::string* why) {
    const std::string bytes = read_file(path);
    if (bytes.empty()) {
        if (why) *why = "cannot read " + path;
        return {};
    }
    return cubins_of(bytes, why);
}

GpuBuildResources read_fatbin_resources(const std::string& elf) {
    GpuBuildResources r;
    r.source = "the GPU build's fatbin, read directly (no cuobjdump found)";
    std::string skipped;
    for (const Cubin& c : cubins_of(elf, &skipped)) read_cubin(c.bytes, c.arch, r.kernels);
    keep_one_architecture(r);
    r.available = !r.kernels.empty();
    if (!r.available) r.why = skipped.empty() ? "the GPU build's fatbin holds no cubin" : skipped;
    return r;
}

namespace {

std::string find_cuobjdump() {
    if (const char* env = std::getenv("GPULAB_CUOBJDUMP"); env && *env) return is_program_file(env) ? env : "";
    if (std::string p = program_on_path("cuobjdump"); !p.empty()) return p;
    if (const char* home = std::getenv("CUDA_HOME"); home && *home && is_program_file(std::string(home) + "/bin/cuobjdump"))
        return std::string(home) + "/bin/cuobjdump";
    return is_program_file("/usr/local/cuda/bin/cuobjdump") ? "/usr/local/cuda/bin/cuobjdump" : "";
}

GpuBuildResources run_cuobjdump(const std::string& tool, const std::string& library) {
    GpuBuildResources r;
    std::string text;
    const ToolRun dumped = run_tool({tool, "--dump-resource-usage", library});
    text = dumped.started ? dumped.output : dumped.cannot_start;
    if (dumped.succeeded()) r = parse_cuobjdump_resource_usage(text);
    else r.why = tool + " --dump-resource-usage failed: " + text.substr(0, 300);
    return r;
}

}  // namespace

const GpuBuildResources& gpu_build_resources(const std::string& gpu_library) {
    static std::mutex mutex;
    static std::map<std::string, GpuBuildResources> cache;
    std::lock_guard<std::mutex> lock(mutex);
    const auto found = cache.find(gpu_library);
    if (found != cache.end()) return found->second;
    GpuBuildResources r;
    std::error_code error;
    if (!fs::exists(gpu_library, error)) {
        r.why = "the GPU build " + gpu_library + " is not built";
    } else {
        std::string tried;
        if (const std::string tool = find_cuobjdump(); !tool.empty()) {
            r = run_cuobjdump(tool, gpu_library);
            if (!r.available) tried = r.why + "; ";
        }
        if (!r.available) {
            r = read_fatbin_resources(read_file(gpu_library));
            if (!r.available) r.why = tried + r.why;
        }
    }
    r.library = gpu_library;
    return cache.emplace(gpu_library, std::move(r)).first->second;
}

std::string gpu_build_of(const std::string& cpu_library, const std::string& lab, std::string& why) {
    try {
        const fs::path lib = fs::weakly_canonical(cpu_library);
        for (fs::path dir = lib.parent_path(); dir.has_relative_path(); dir = dir.parent_path()) {
            if (dir.filename() != "solutions") continue;
            const fs::path manifest_path = dir.parent_path() / "gpulab-labs" / (lab + ".json");
            const Json manifest = load_json_file(manifest_path.string());
            for (const auto& [name, solution] : manifest.at("solutions").items()) {
                if (!solution.contains("cpu") || fs::weakly_canonical(solution["cpu"].value("library", "")) != lib)
                    continue;
                if (solution.contains("gpu")) return solution["gpu"].value("library", "");
                why = "this build has no GPU build of " + name + " (configured without CUDA)";
                return "";
            }
            why = "the build's lab manifest " + manifest_path.string() + " does not list " + lib.string();
            return "";
        }
        why = "cannot find the build's lab manifest from " + cpu_library;
    } catch (const std::exception& e) {
        why = std::string("cannot read the build's lab manifest: ") + e.what();
    }
    return "";
}

// ---- Matching a CPU execution mode launch to its GPU kernel ------------------------------------------------

namespace {

// Splits `list` at its top-level commas (outside <>, (), [] and {}), trimming each part.
std::vector<std::string> split_top_level(const std::string& list) {
    std::vector<std::string> out;
    int depth = 0;
    std::string part;
    const auto flush = [&] {
        const std::size_t b = part.find_first_not_of(' '), e = part.find_last_not_of(' ');
        if (b != std::string::npos) out.push_back(part.substr(b, e - b + 1));
        part.clear();
    };
    for (char c : list) {
        if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
        if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
        if (c == ',' && depth == 0) flush();
        else part += c;
    }
    flush();
    return out;
}

// The position of the bracket that closes the one at `open` (same kind), or npos.
std::size_t closing(const std::string& s, std::size_t open) {
    const char o = s[open], c = o == '<' ? '>' : o == '(' ? ')' : o == '[' ? ']' : '}';
    int depth = 0;
    for (std::size_t i = open; i < s.size(); ++i) {
        if (s[i] == o) ++depth;
        else if (s[i] == c && --depth == 0) return i;
    }
    return std::string::npos;
}

// A type as a by-value parameter sees it: no reference, no top-level const.
std::string decayed(std::string type) {
    for (bool changed = true; changed;) {
        changed = false;
        while (!type.empty() && (type.back() == '&' || type.back() == ' ')) type.pop_back(), changed = true;
        if (type.size() > 6 && type.compare(type.size() - 6, 6, " const") == 0) type.resize(type.size() - 6), changed = true;
    }
    return type;
}

// "void ns::k<float>(float const*, int)" -> "ns::k<float>" (the return type and parameters dropped).
std::string qualified_name(const std::string& demangled) {
    std::string s = demangled;
    if (!s.empty() && s.back() == ')') {
        int depth = 0;
        for (std::size_t i = s.size(); i-- > 0;) {
            if (s[i] == ')') ++depth;
            else if (s[i] == '(' && --depth == 0) {
                s.resize(i);
                break;
            }
        }
    }
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {  // the return type ends at the last top-level space
        if (s[i] == '>' || s[i] == ')') ++depth;
        else if (s[i] == '<' || s[i] == '(') --depth;
        else if (s[i] == ' ' && depth == 0) return s.substr(i + 1);
    }
    return s;
}

std::string without_template_arguments(const std::string& name) {
    if (name.empty() || name.back() != '>') return name;
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
        if (name[i] == '>') ++depth;
        else if (name[i] == '<' && --depth == 0) return name.substr(0, i);
    }
    return name;
}

std::string without_spaces(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    if (s.rfind("::", 0) == 0) s.erase(0, 2);
    return s;
}

// Whether `name` ends with the launch site's `spelled` on a "::" boundary ("heat_rod::ftcs_interior" fits
// "ftcs_interior", "(anonymous namespace)::k" fits "k").
bool ends_with_name(const std::string& name, const std::string& spelled) {
    if (spelled.empty() || name.size() < spelled.size()) return false;
    if (name.compare(name.size() - spelled.size(), spelled.size(), spelled) != 0) return false;
    return name.size() == spelled.size() || name.compare(name.size() - spelled.size() - 2, 2, "::") == 0;
}

// The symbol of the CPU build's function at `address` (its .symtab: a solution's kernels are local symbols).
std::string cpu_symbol_at(const void* address) {
    Dl_info info{};
    if (!address || ::dladdr(address, &info) == 0 || !info.dli_fname) return "";
    static std::mutex mutex;
    static std::map<std::string, std::map<std::uint64_t, std::string>> by_file;
    std::lock_guard<std::mutex> lock(mutex);
    auto found = by_file.find(info.dli_fname);
    if (found == by_file.end()) {
        std::map<std::uint64_t, std::string> functions;
        const std::string elf = read_file(info.dli_fname);
        for (const Symbol& s : symbols_of(elf, sections_of(elf)))
            if (s.type == 2 /* STT_FUNC */ && s.value) functions.emplace(s.value, s.name);
        found = by_file.emplace(info.dli_fname, std::move(functions)).first;
    }
    const auto offset = std::uint64_t(static_cast<const char*>(address) - static_cast<const char*>(info.dli_fbase));
    const auto symbol = found->second.find(offset);
    return symbol == found->second.end() ? "" : symbol->second;
}

std::string listed(const std::vector<const KernelResources*>& kernels) {
    std::string out;
    for (const KernelResources* k : kernels) out += (out.empty() ? "" : ", ") + qualified_name(k->name);
    return out;
}

}  // namespace

std::vector<std::string> parameter_types(const std::string& demangled) {
    if (demangled.empty() || demangled.back() != ')') return {};
    int depth = 0;
    for (std::size_t i = demangled.size(); i-- > 0;) {
        if (demangled[i] == ')') ++depth;
        else if (demangled[i] == '(' && --depth == 0) {
            std::vector<std::string> out;
            for (const std::string& p : split_top_level(demangled.substr(i + 1, demangled.size() - i - 2)))
                if (p != "void") out.push_back(decayed(p));
            return out;
        }
    }
    return {};
}

std::vector<std::string> deduced_argument_types(const std::string& thunk) {
    const std::string marker = ">::operator()<";
    const std::size_t m = thunk.find(marker);
    if (thunk.find("DeducedLauncher<") == std::string::npos || m == std::string::npos) return {};
    const std::size_t open = m + marker.size() - 1, close = closing(thunk, open);
    if (close == std::string::npos) return {};
    std::vector<std::string> out;
    for (const std::string& a : split_top_level(thunk.substr(open + 1, close - open - 1))) out.push_back(decayed(a));
    return out;
}

KernelMatch match_kernel(const GpuBuildResources& build, const void* cpu_kernel, const std::string& launch_name,
                         std::size_t static_shared) {
    KernelMatch m;
    if (!build.available) {
        m.why = build.why;
        return m;
    }
    const std::string symbol = cpu_symbol_at(cpu_kernel);
    for (const KernelResources& k : build.kernels)
        if (!symbol.empty() && k.mangled == symbol) {
            m.kernel = &k;
            m.how = "by its mangled name";
            return m;
        }
    // By the launch site's name: with its template arguments where it spelled them, else without.
    const std::string spelled = without_spaces(launch_name);
    std::vector<const KernelResources*> named;
    for (const KernelResources& k : build.kernels)
        if (ends_with_name(without_spaces(qualified_name(k.name)), spelled)) named.push_back(&k);
    if (named.empty())
        for (const KernelResources& k : build.kernels)
            if (ends_with_name(without_spaces(without_template_arguments(qualified_name(k.name))),
                               without_template_arguments(spelled)))
                named.push_back(&k);
    if (named.empty()) {
        m.why = "no kernel of the GPU build is named " + launch_name;
        return m;
    }
    m.how = "by its name";
    std::vector<const KernelResources*> kept = named;
    // A kernel template's launch: the argument types it deduced from pick the instantiation.
    const std::vector<std::string> arguments = deduced_argument_types(demangle(symbol));
    if (kept.size() > 1 && !arguments.empty()) {
        std::vector<const KernelResources*> typed;
        for (const KernelResources* k : kept)
            if (parameter_types(k->name) == arguments) typed.push_back(k);
        if (!typed.empty()) kept = typed, m.how = "by its name and argument types";
    }
    if (kept.size() > 1 && static_shared > 0) {
        std::vector<const KernelResources*> sized;
        for (const KernelResources* k : kept)
            if (k->shared_bytes == static_shared) sized.push_back(k);
        if (!sized.empty()) kept = sized, m.how = "by its name and static shared memory";
    }
    if (kept.size() == 1) {
        m.kernel = kept.front();
        return m;
    }
    m.how.clear();
    m.why = "the launch of " + launch_name + " fits " + std::to_string(kept.size()) + " kernels of the GPU build (" +
            listed(kept) + "): not matched";
    return m;
}

}  // namespace gpulab
