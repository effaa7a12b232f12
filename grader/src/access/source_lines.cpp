#include "gpulab/source_lines.h"

#include "gpulab/child_spawn.h"
#include "gpulab/program_on_path.h"

#include <dlfcn.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace gpulab {
namespace {

std::string trimmed(const std::string& s) {
    const std::size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Line `n` (from 1) of `path`, trimmed; files read once.
std::string line_of_file(const std::string& path, int n) {
    static std::map<std::string, std::vector<std::string>> files;
    auto found = files.find(path);
    if (found == files.end()) {
        std::vector<std::string> lines;
        std::ifstream in(path);
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        found = files.emplace(path, std::move(lines)).first;
    }
    return n >= 1 && std::size_t(n) <= found->second.size() ? trimmed(found->second[std::size_t(n) - 1]) : "";
}

// "path:line" or "path:line (discriminator 2)" from addr2line; "??:0" or "??:?" where it does not know.
SourceLine parse_location(const std::string& text) {
    SourceLine l;
    std::string s = text.substr(0, text.find(" ("));
    const std::size_t colon = s.rfind(':');
    if (colon == std::string::npos || s.compare(0, 2, "??") == 0) return l;
    try {
        l.line = std::stoi(s.substr(colon + 1));
    } catch (const std::exception&) {
        return {};
    }
    if (l.line <= 0) return {};
    return source_line_at(s.substr(0, colon), l.line);
}

}  // namespace

SourceLine source_line_at(const std::string& file, int line) {
    SourceLine l;
    if (file.empty() || line <= 0) return l;
    l.file = file, l.line = line;
    // gpulab-cu2cpp's output, whose second line is `#line 1 "<the .cu>"`: every line of code after it is the .cu's,
    // and the line table says so, but binutils' addr2line (2.40) names some functions' lines by the compiled file
    // (DWARF 5's file 0) with the .cu's numbers: the same line of the .cu, not the file's own line N (measured on
    // lab 02: the loads of `in[c]` on .cu line 30, named ".cu.cpp:30"; the GPU's line table names line 30 too).
    const std::string directive = line_of_file(l.file, 2);
    if (directive.rfind("#line 1 \"", 0) == 0 && directive.size() > 10 && directive.back() == '"')
        l.file = directive.substr(9, directive.size() - 10);
    l.text = line_of_file(l.file, l.line);
    return l;
}

SourceLine launch_line_of(const RecordedLaunch& launch) {
    if (launch.site_file && launch.site_line > 0) {
        // __FILE__ is relative to the tree's root where the file is inside it (-fmacro-prefix-map).
        std::string file = launch.site_file;
#ifdef GPULAB_SOURCE_ROOT
        if (!file.empty() && file[0] != '/') file = std::string(GPULAB_SOURCE_ROOT) + "/" + file;
#endif
        return source_line_at(file, launch.site_line);
    }
    if (launch.site_address) {
        const std::vector<SourceLine> lines = source_lines_of({launch.site_address});
        if (!lines.empty()) return lines[0];
    }
    return {};
}

std::string SourceLine::quoted() const {
    if (file.empty()) return "";
    const std::size_t slash = file.find_last_of('/');
    return (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" + std::to_string(line) +
           (text.empty() ? "" : "  " + text);
}

std::vector<SourceLine> source_lines_of(const std::vector<std::uintptr_t>& addresses, std::string* why) {
    std::vector<SourceLine> out(addresses.size());
    std::string first_why;
    const auto note = [&](const std::string& w) {
        if (first_why.empty()) first_why = w;
    };
    // The addresses of each library, as offsets from where it is loaded.
    std::map<std::string, std::vector<std::pair<std::size_t, std::uintptr_t>>> by_library;
    for (std::size_t i = 0; i < addresses.size(); ++i) {
        Dl_info info{};
        if (::dladdr(reinterpret_cast<const void*>(addresses[i]), &info) == 0 || !info.dli_fname || !info.dli_fbase) {
            note("an address outside every loaded library");
            continue;
        }
        by_library[info.dli_fname].push_back({i, addresses[i] - reinterpret_cast<std::uintptr_t>(info.dli_fbase)});
    }
    const std::string addr2line = program_on_path("addr2line");
    if (addr2line.empty() && !by_library.empty()) note("addr2line (binutils) is not on PATH");
    for (const auto& [library, offsets] : by_library) {
        if (addr2line.empty()) break;
        std::vector<std::string> argv{addr2line, "-e", library};
        for (const auto& [index, offset] : offsets) {
            char hex[32];
            std::snprintf(hex, sizeof hex, "0x%zx", std::size_t(offset));
            argv.push_back(hex);
        }
        const ToolRun run = run_tool(argv, 20);
        if (!run.succeeded()) {
            note("addr2line failed on " + library + (run.cannot_start.empty() ? "" : ": " + run.cannot_start));
            continue;
        }
        std::istringstream lines(run.output);
        std::string line;
        for (const auto& [index, offset] : offsets) {
            if (!std::getline(lines, line)) break;
            out[index] = parse_location(line);
            if (out[index].file.empty()) note(library + " has no line table for its kernels (built without -g1?)");
        }
    }
    if (why) *why = first_why;
    return out;
}

}  // namespace gpulab
