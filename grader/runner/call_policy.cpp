#include "call_policy.h"

#include "child_process.h"

#include "gpulab/demangle.h"
#include "gpulab/lab_config.h"

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace gpulab::runner {
namespace {

namespace fs = std::filesystem;

// Runs a binutils tool on the library and returns what it printed ("" and `error` set on failure).
std::string tool_output(const std::vector<std::string>& argv, std::string* error) {
    const fs::path out = fs::temp_directory_path() / ("gpulab-calls-" + std::to_string(::getpid()) + ".txt");
    fs::remove(out);
    const auto started = std::chrono::steady_clock::now();
    const ExitStatus status = run_child({argv, {{"LC_ALL", "C"}}, out.string()}, [&] {
        return std::chrono::steady_clock::now() - started < std::chrono::seconds(60);
    });
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    fs::remove(out);
    if (!status.exited || status.code != 0) {
        *error = argv[0] + " failed (" + status.describe() + "): " + text.str().substr(0, 400);
        return "";
    }
    return text.str();
}

bool matches_any(const Json& patterns, const std::string& name, const std::string& demangled) {
    for (const Json& p : patterns) {
        const std::string pattern = p.get<std::string>();
        if (fnmatch(pattern.c_str(), name.c_str(), 0) == 0 || fnmatch(pattern.c_str(), demangled.c_str(), 0) == 0)
            return true;
    }
    return false;
}

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The first line of the student's sources that uses one of `words` as a whole word, outside a // comment.
std::string find_in_sources(const std::vector<std::string>& sources, const std::vector<std::string>& words) {
    for (const std::string& word : words) {
        for (const std::string& source : sources) {
            std::ifstream in(source);
            std::string line;
            for (int number = 1; std::getline(in, line); ++number) {
                const std::string code = line.substr(0, line.find("//"));
                for (std::size_t at = code.find(word); at != std::string::npos; at = code.find(word, at + 1)) {
                    const bool left = at == 0 || !is_identifier_char(code[at - 1]);
                    const bool right = at + word.size() >= code.size() || !is_identifier_char(code[at + word.size()]);
                    if (left && right) {
                        std::string text = line.substr(line.find_first_not_of(" \t") == std::string::npos
                                                           ? 0 : line.find_first_not_of(" \t"));
                        if (text.size() > 100) text = text.substr(0, 97) + "...";
                        return fs::path(source).filename().string() + ":" + std::to_string(number) + ": " + text;
                    }
                }
            }
        }
    }
    return "";
}

// The function's bare name, to look for in the source: "std::basic_ofstream<...>::open(...)" -> "open".
std::string short_name(const std::string& demangled) {
    std::string name = demangled.substr(0, demangled.find('('));
    if (const auto template_at = name.find('<'); template_at != std::string::npos) name = name.substr(0, template_at);
    if (const auto scope = name.rfind("::"); scope != std::string::npos) name = name.substr(scope + 2);
    if (const auto version = name.find('@'); version != std::string::npos) name = name.substr(0, version);
    return name;
}

// What the objects use but none of them defines (what the solution's code calls outside itself), and what
// they define (where a header-only library's code ends up).
struct SymbolTable {
    std::vector<std::string> imported, defined;
};

SymbolTable symbol_table(const std::vector<std::string>& objects, std::string* error) {
    std::vector<std::string> argv{"nm"};
    argv.insert(argv.end(), objects.begin(), objects.end());
    const std::string text = tool_output(argv, error);
    std::set<std::string> used, defined;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        // "<address> <kind> <name>" for a definition, "<spaces> U <name>" for a use.
        std::istringstream fields(line);
        std::vector<std::string> words;
        for (std::string w; fields >> w;) words.push_back(w);
        if (words.size() == 2 && (words[0] == "U" || words[0] == "w" || words[0] == "v")) used.insert(words[1]);
        else if (words.size() == 3) defined.insert(words[2]);
    }
    SymbolTable table;
    for (const std::string& name : used)
        if (!defined.count(name)) table.imported.push_back(name.substr(0, name.find('@')));
    for (const std::string& name : defined) table.defined.push_back(name.substr(0, name.find('@')));
    return table;
}

// Per function of the library's code: how many instructions, which calls, whether it makes a system call.
struct FunctionCode {
    int instructions = 0;
    bool calls_exit = false, sets_one = false;
    std::string system_call;  // the instruction, if any
};

std::map<std::string, FunctionCode> disassemble(const std::vector<std::string>& objects, std::string* error) {
    std::vector<std::string> argv{"objdump", "-dr", "--no-show-raw-insn"};
    argv.insert(argv.end(), objects.begin(), objects.end());
    const std::string text = tool_output(argv, error);
    std::map<std::string, FunctionCode> functions;
    static const std::regex header(R"(^[0-9a-f]+ <(.+)>:$)");
    static const std::regex instruction(R"(^\s+[0-9a-f]+:\s+(.*)$)");
    static const std::regex call_of_exit(R"(R_X86_64_(PLT32|PC32|GOTPCREL\w*)\s+exit([-+@].*)?$)");
    std::istringstream in(text);
    std::string line;
    FunctionCode* current = nullptr;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_match(line, m, header)) {
            current = &functions[m[1]];
        } else if (current && std::regex_match(line, m, instruction)) {
            const std::string insn = m[1];
            // In an object file a call's target is a relocation on the line after it.
            if (std::regex_search(insn, call_of_exit)) {
                current->calls_exit = true;
                continue;
            }
            if (insn.rfind("R_X86_64", 0) == 0) continue;
            if (insn.find("nop") != std::string::npos || insn.rfind("int3", 0) == 0 || insn.rfind("data16", 0) == 0)
                continue;
            ++current->instructions;
            if (insn.find("<exit@plt>") != std::string::npos) current->calls_exit = true;
            if (insn.find("$0x1,") != std::string::npos) current->sets_one = true;
            if (insn.rfind("syscall", 0) == 0 || insn.rfind("sysenter", 0) == 0 || insn.find("int    $0x80") == 0)
                current->system_call = insn;
        }
    }
    return functions;
}

// The source with its comments blanked out, newlines kept (so line numbers stay); string and character
// literals are left as they are, so a "//" inside one starts no comment.
std::string without_comments(const std::string& text) {
    enum { code, line_comment, block_comment, string_literal, char_literal } state = code;
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i], next = i + 1 < text.size() ? text[i + 1] : '\0';
        switch (state) {
            case code:
                if (c == '/' && (next == '/' || next == '*')) {
                    state = next == '/' ? line_comment : block_comment;
                    out += "  ";
                    ++i;
                    continue;
                }
                // A quote after a digit is a digit separator (1'000), not a character literal.
                if (c == '"') state = string_literal;
                if (c == '\'' && (i == 0 || !std::isxdigit(static_cast<unsigned char>(text[i - 1]))))
                    state = char_literal;
                out += c;
                break;
            case line_comment:  // a backslash at the end of the line carries the comment on
                if (c == '\n' && (i == 0 || text[i - 1] != '\\')) state = code;
                out += c == '\n' ? '\n' : ' ';
                break;
            case block_comment:
                if (c == '*' && next == '/') {
                    state = code;
                    out += "  ";
                    ++i;
                    continue;
                }
                out += c == '\n' ? '\n' : ' ';
                break;
            case string_literal:
            case char_literal:
                out += c;
                if (c == '\\' && next != '\0' && next != '\n') {
                    out += next;
                    ++i;
                } else if (c == (state == string_literal ? '"' : '\'') || c == '\n') {
                    state = code;
                }
                break;
        }
    }
    return out;
}

struct IncludeLine {
    std::string header;  // the name between the quotes or the angle brackets
    std::string as_written;  // with them: "<thrust/sort.h>"
    std::string where;   // "heat_rod.cu:4: #include <thrust/transform.h>"
};

// Every #include (also #include_next and #import) of `sources`, outside comments, however it is spaced; a
// file next to a source that one includes in quotes is read too (once), as the compiler would find it.
std::vector<IncludeLine> read_includes(const std::vector<std::string>& sources) {
    static const std::regex directive(R"(^\s*#\s*(include|include_next|import)\s*([<"])\s*([^>"]*?)\s*[>"])");
    std::vector<IncludeLine> found;
    std::set<std::string> read;
    std::vector<fs::path> queue(sources.begin(), sources.end());
    while (!queue.empty()) {
        const fs::path source = queue.front();
        queue.erase(queue.begin());
        std::error_code ignored;
        const std::string key = fs::weakly_canonical(source, ignored).string();
        if (!read.insert(key).second) continue;
        std::ifstream in(source);
        if (!in) continue;
        std::stringstream text;
        text << in.rdbuf();
        const std::string original = text.str();
        std::vector<std::string> raw_lines;
        {
            std::istringstream raw(original);
            for (std::string line; std::getline(raw, line);) raw_lines.push_back(line);
        }
        std::istringstream code(without_comments(original));
        std::string line;
        for (int number = 1; std::getline(code, line); ++number) {
            const int first = number;
            // A directive may go on over a backslash-newline.
            while (!line.empty() && line.back() == '\\') {
                std::string more;
                if (!std::getline(code, more)) break;
                line = line.substr(0, line.size() - 1) + more;
                ++number;
            }
            std::smatch m;
            if (!std::regex_search(line, m, directive)) continue;
            std::string shown = first <= static_cast<int>(raw_lines.size()) ? raw_lines[first - 1] : line;
            shown = shown.substr(std::min(shown.size(), shown.find_first_not_of(" \t")));
            if (shown.size() > 100) shown = shown.substr(0, 97) + "...";
            const std::string header = m[3], open = m[2];
            found.push_back({header, open == "<" ? "<" + header + ">" : "\"" + header + "\"",
                             source.filename().string() + ":" + std::to_string(first) + ": " + shown});
            if (m[2] == "\"" && fs::is_regular_file(source.parent_path() / std::string(m[3]), ignored))
                queue.push_back(source.parent_path() / std::string(m[3]));
        }
    }
    return found;
}

// Whether a rule's "includes" patterns name `header`: its whole name or any tail after a '/', so that
// "thrust/*" also catches <../cuda/include/thrust/sort.h> and "curand.h" catches <cuda/curand.h>.
bool names_header(const Json& rule, const std::string& header) {
    for (const Json& p : rule.value("includes", Json::array())) {
        const std::string pattern = p.get<std::string>();
        for (std::size_t from = 0; from != std::string::npos;) {
            if (fnmatch(pattern.c_str(), header.c_str() + from, 0) == 0) return true;
            from = header.find('/', from);
            if (from != std::string::npos) ++from;
        }
    }
    return false;
}

// A defined symbol's name as a person would write it: "void thrust::THRUST_300001_SM_900_NS::cuda_cub::
// core::_kernel_agent<...>(...)" -> "thrust::cuda_cub::core::_kernel_agent".
std::string compact_name(std::string demangled) {
    // nvcc's host stub of a kernel, "__device_stub__Z...": the kernel's own name.
    if (const auto stub = demangled.find("__device_stub__Z"); stub != std::string::npos) {
        const std::string kernel = demangled.substr(stub + 14);
        demangled = demangle(kernel.substr(0, std::min(kernel.find('('), kernel.size())));
    }
    for (const std::string anonymous = "(anonymous namespace)"; demangled.find(anonymous) != std::string::npos;)
        demangled.replace(demangled.find(anonymous), anonymous.size(), "{anonymous}");
    std::string name;
    int depth = 0;
    for (char c : demangled) {
        if (c == '(' && depth == 0) break;  // the parameters, and any qualifiers after them
        if (c == '<') ++depth;
        else if (c == '>' && depth > 0) --depth;
        else if (depth == 0) name += c;
    }
    if (const auto space = name.rfind(' '); space != std::string::npos) name = name.substr(space + 1);  // a return type
    static const std::regex abi_namespace("::[A-Z]+_[0-9]+(_SM_[0-9]+)*(_NS)?(?=::)");
    return std::regex_replace(name, abi_namespace, "");
}

// "a, b and 3 more"
std::string some_of(const std::vector<std::string>& names) {
    std::string out;
    const std::size_t shown = std::min<std::size_t>(names.size(), 3);
    for (std::size_t i = 0; i < shown; ++i) {
        if (i > 0) out += i + 1 == shown && names.size() == shown ? " and " : ", ";
        out += names[i];
    }
    if (names.size() > shown) out += " and " + std::to_string(names.size() - shown) + " more";
    return out;
}

bool load_policy(const std::string& file, Json* policy, std::string* error) {
    try {
        *policy = load_json_file(file);
        return true;
    } catch (const std::exception& e) {
        *error = e.what();
        return false;
    }
}

// nvcc writes, for each __device__ function, a host stub that calls exit(1) and nothing else
// ({ int volatile ___ = 1; ::exit(___); }): a handful of instructions that load 1 and call exit.
bool is_device_function_stub(const FunctionCode& f) { return f.calls_exit && f.sets_one && f.instructions <= 8; }

}  // namespace

std::string CallCheck::describe() const {
    if (!error.empty()) return "the grader could not check what your code calls: " + error;
    const auto any = [&](auto&& test) { return std::any_of(refused.begin(), refused.end(), test); };
    const bool libraries = any([](const RefusedCall& r) { return !r.library.empty(); });
    const bool others = any([](const RefusedCall& r) { return r.library.empty(); });
    const bool cublas = any([](const RefusedCall& r) { return r.library.rfind("cuBLAS", 0) == 0; });
    std::string out;
    if (libraries)
        out = "This lab grades kernels you write yourself: libraries that compute the result for you (cuBLAS, Thrust, "
              "CUB, CUTLASS and the like) are not allowed in these labs, and none of this code ran.";
    if (libraries && others) out += " ";
    if (others) out += "The grader does not run code that can reach outside its kernels and launches.";
    out += " Your code:";
    for (const RefusedCall& r : refused) {
        out += "\n  - " + r.verb + " " + r.call + ": it " + r.why;
        if (!r.where.empty()) out += "\n      " + r.where;
    }
    if (libraries)
        out += std::string("\nWrite that work as kernels of your own.") +
               (cublas ? " (A lab's report may time cuBLAS beside your kernels, as lab 07's does: that is the "
                         "grader's measurement, not part of your code.)"
                       : "");
    out += "\nTake these out (the handout's \"What your code may call\" lists what is allowed) and grade again.";
    return out;
}

CallCheck check_solution_includes(const std::vector<std::string>& sources, const std::string& policy_file) {
    CallCheck check;
    Json policy;
    if (!load_policy(policy_file, &policy, &check.error)) return check;
    for (const IncludeLine& include : read_includes(sources)) {
        for (const Json& rule : policy.at("refused")) {
            if (!names_header(rule, include.header)) continue;
            RefusedCall r;
            r.verb = "includes";
            r.call = include.as_written;
            r.why = rule.at("why");
            r.where = include.where;
            r.library = rule.value("library", "");
            check.refused.push_back(r);
            break;
        }
    }
    return check;
}

namespace {

// The first refused rule that names the symbol (a defined one only by rules marked "also_defined").
const Json* refusing_rule(const Json& rules, const std::string& name, const std::string& plain, bool defined) {
    for (const Json& rule : rules)
        if ((!defined || rule.value("also_defined", false)) && matches_any(rule.value("calls", Json::array()), name, plain) &&
            !matches_any(rule.value("except", Json::array()), name, plain))
            return &rule;
    return nullptr;
}

// A refused library is named once, with the calls (or, for a header-only one, the functions compiled in) that use it.
struct LibraryUse {
    std::vector<std::string> called, compiled_in, words;
};
using LibraryUses = std::map<const Json*, LibraryUse>;

// Each imported call a rule refuses, or no rule allows, as a refusal (a refused library's calls gathered in `libraries`
// instead).
void check_imported_calls(const SymbolTable& symbols, bool only_stubs_call_exit, const Json& policy,
                          const std::vector<std::string>& sources, LibraryUses& libraries, CallCheck& check) {
    const Json& rules = policy.at("refused");
    for (const std::string& name : symbols.imported) {  // each once: symbol_table came from a set
        const std::string plain = demangle(name);
        if (name == "exit" && only_stubs_call_exit) continue;
        const Json* refusing = refusing_rule(rules, name, plain, false);
        if (refusing && refusing->contains("library")) {
            LibraryUse& use = libraries[refusing];
            use.called.push_back(plain);
            const std::string bare = short_name(plain);
            use.words.push_back(bare);
            if (bare.size() > 3 && bare.ends_with("_v2")) use.words.push_back(bare.substr(0, bare.size() - 3));
            continue;
        }
        bool allowed = false;
        if (!refusing)
            for (const Json& group : policy.at("allowed")) allowed = allowed || matches_any(group.at("calls"), name, plain);
        if (allowed) continue;
        RefusedCall r;
        r.call = plain.size() > 110 ? plain.substr(0, 107) + "..." : plain;
        if (refusing) {
            r.why = refusing->at("why");
            std::vector<std::string> words{short_name(plain)};
            for (const Json& w : refusing->value("look_for", Json::array())) words.push_back(w);
            r.where = find_in_sources(sources, words);
        } else {
            r.why = "is not on the list of calls the grader allows (grader/runner/allowed_calls.json; ask your "
                    "instructor if you need it)";
            r.where = find_in_sources(sources, {short_name(plain)});
            r.listed = false;
        }
        check.refused.push_back(r);
    }
}

// The functions of refused header-only libraries compiled into the objects, each library's shortest names first (the
// ones a person recognises).
void find_compiled_in(const SymbolTable& symbols, const Json& rules, LibraryUses& libraries) {
    std::set<std::string> seen;
    for (const std::string& name : symbols.defined) {
        const std::string plain = demangle(name);
        if (const Json* refusing = refusing_rule(rules, name, plain, true); refusing && refusing->contains("library"))
            if (const std::string shown = compact_name(plain); seen.insert(shown).second)
                libraries[refusing].compiled_in.push_back(shown);
    }
    for (auto& [rule, use] : libraries)
        std::stable_sort(use.compiled_in.begin(), use.compiled_in.end(),
                         [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
}

// One refusal per refused library, in the policy's order, pointing at the #include that brought it in, else at a line
// that uses it.
std::vector<RefusedCall> refused_libraries(const Json& rules, const LibraryUses& libraries,
                                           const std::vector<std::string>& sources) {
    std::vector<IncludeLine> includes;
    if (!libraries.empty()) includes = read_includes(sources);
    std::vector<RefusedCall> refusals;
    for (const Json& rule : rules) {
        const auto use = libraries.find(&rule);
        if (use == libraries.end()) continue;
        RefusedCall r;
        r.library = rule.at("library");
        r.why = rule.at("why");
        r.verb = use->second.called.empty() ? "compiles in" : "calls";
        r.call = some_of(use->second.called.empty() ? use->second.compiled_in : use->second.called);
        for (const IncludeLine& include : includes)
            if (r.where.empty() && names_header(rule, include.header)) r.where = include.where;
        std::vector<std::string> words = use->second.words;
        for (const Json& w : rule.value("look_for", Json::array())) words.push_back(w);
        if (r.where.empty()) r.where = find_in_sources(sources, words);
        refusals.push_back(r);
    }
    return refusals;
}

}  // namespace

CallCheck check_solution_calls(const std::vector<std::string>& objects, const std::vector<std::string>& sources,
                               const std::string& policy_file) {
    CallCheck check;
    Json policy;
    if (!load_policy(policy_file, &policy, &check.error)) return check;
    const SymbolTable symbols = symbol_table(objects, &check.error);
    if (!check.error.empty()) return check;

    const std::map<std::string, FunctionCode> code = disassemble(objects, &check.error);
    if (!check.error.empty()) return check;
    const bool only_stubs_call_exit = std::none_of(code.begin(), code.end(), [](const auto& function) {
        return function.second.calls_exit && !is_device_function_stub(function.second);
    });
    const Json& rules = policy.at("refused");
    LibraryUses libraries;
    check_imported_calls(symbols, only_stubs_call_exit, policy, sources, libraries, check);
    find_compiled_in(symbols, rules, libraries);
    const std::vector<RefusedCall> library_refusals = refused_libraries(rules, libraries, sources);
    // A header-only library's own code is in the objects too, and makes calls of its own (Thrust's NVTX ranges
    // look up their profiler with dlopen and getenv): a refused call that no line of the student's files makes
    // is put down to it.
    std::vector<std::string> compiled_in;
    for (const Json& rule : rules)
        if (const auto use = libraries.find(&rule); use != libraries.end() && !use->second.compiled_in.empty())
            compiled_in.push_back(rule.at("library"));
    if (!compiled_in.empty())
        for (RefusedCall& r : check.refused)
            if (r.where.empty())
                r.where = "(no line of your files makes this call: it most likely comes from " + some_of(compiled_in) +
                          " compiled into your code, and goes when that goes)";
    check.refused.insert(check.refused.begin(), library_refusals.begin(), library_refusals.end());

    for (const auto& [function, f] : code)
        if (!f.system_call.empty())
            check.refused.push_back({"the instruction \"" + f.system_call + "\" (in " + demangle(function) + ")",
                                     "makes system calls directly, with inline assembly",
                                     find_in_sources(sources, {"asm", "__asm__", "__asm"})});
    return check;
}

}  // namespace gpulab::runner
