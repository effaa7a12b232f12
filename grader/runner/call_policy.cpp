#include "call_policy.h"

#include "child_process.h"

#include "gpulab/lab_config.h"

#include <cxxabi.h>
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
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

std::string demangle(const std::string& name) {
    int status = 0;
    char* plain = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !plain) return name;
    std::string out = plain;
    std::free(plain);
    return out;
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

// What the objects use but none of them defines: what the solution's code calls outside itself.
std::vector<std::string> imported_symbols(const std::vector<std::string>& objects, std::string* error) {
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
    std::vector<std::string> names;
    for (const std::string& name : used)
        if (!defined.count(name)) names.push_back(name.substr(0, name.find('@')));
    return names;
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

// nvcc writes, for each __device__ function, a host stub that calls exit(1) and nothing else
// ({ int volatile ___ = 1; ::exit(___); }): a handful of instructions that load 1 and call exit.
bool is_device_function_stub(const FunctionCode& f) { return f.calls_exit && f.sets_one && f.instructions <= 8; }

}  // namespace

std::string CallCheck::describe() const {
    if (!error.empty()) return "the grader could not check what your code calls: " + error;
    std::string out = "The grader does not run code that can reach outside its kernels and launches. Your code:";
    for (const RefusedCall& r : refused) {
        out += "\n  - calls " + r.call + ": it " + r.why;
        if (!r.where.empty()) out += "\n      " + r.where;
    }
    out += "\nTake these calls out (the handout's \"What your code may call\" lists what is allowed) and grade again.";
    return out;
}

CallCheck check_solution_calls(const std::vector<std::string>& objects, const std::vector<std::string>& sources,
                               const std::string& policy_file) {
    CallCheck check;
    Json policy;
    try {
        policy = load_json_file(policy_file);
    } catch (const std::exception& e) {
        check.error = e.what();
        return check;
    }
    const std::vector<std::string> imports = imported_symbols(objects, &check.error);
    if (!check.error.empty()) return check;

    const std::map<std::string, FunctionCode> code = disassemble(objects, &check.error);
    if (!check.error.empty()) return check;
    const bool only_stubs_call_exit = std::none_of(code.begin(), code.end(), [](const auto& function) {
        return function.second.calls_exit && !is_device_function_stub(function.second);
    });
    for (const std::string& name : imports) {  // each once: imported_symbols came from a set
        const std::string plain = demangle(name);
        if (name == "exit" && only_stubs_call_exit) continue;
        const Json* refusing = nullptr;
        for (const Json& rule : policy.at("refused"))
            if (matches_any(rule.at("calls"), name, plain) &&
                !matches_any(rule.value("except", Json::array()), name, plain)) {
                refusing = &rule;
                break;
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
        }
        check.refused.push_back(r);
    }

    for (const auto& [function, f] : code)
        if (!f.system_call.empty())
            check.refused.push_back({"the instruction \"" + f.system_call + "\" (in " + demangle(function) + ")",
                                     "makes system calls directly, with inline assembly",
                                     find_in_sources(sources, {"asm", "__asm__", "__asm"})});
    return check;
}

}  // namespace gpulab::runner
