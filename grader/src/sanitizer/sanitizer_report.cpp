// Reading compute-sanitizer's reports, and finding the tool (gpulab/sanitizer_check.h). Apart from the test
// itself (sanitizer_check.cpp), so the grader's own tests can check it without a grader's main().
#include "gpulab/program_on_path.h"
#include "gpulab/sanitizer_check.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace gpulab {
namespace {

namespace fs = std::filesystem;

// ---- Reading the tools' words --------------------------------------------------------------------------

const std::string kPrefix = "=========";

bool starts_with(const std::string& text, const std::string& head) { return text.rfind(head, 0) == 0; }

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// "void stencil3d::stencil_tiled<float>(const T1 *, T1 *, int)" -> "stencil3d::stencil_tiled<float>".
std::string kernel_of(std::string function) {
    function = trim(function);
    int depth = 0;
    for (std::size_t i = 0; i < function.size(); ++i) {
        const char c = function[i];
        if (c == '<') ++depth;
        else if (c == '>') --depth;
        else if (c == '(' && depth == 0) {
            function = function.substr(0, i);
            break;
        }
    }
    if (starts_with(function, "void ")) function = function.substr(5);
    return trim(function);
}

// The tool's own lines that are not problems: its banner, the summaries, the exit code it passes on.
bool is_summary(const std::string& body) {
    static const char* const kNotProblems[] = {"COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY",
                                               "Target application returned", "Program hit"};
    for (const char* head : kNotProblems)
        if (body.find(head) != std::string::npos) return true;
    return false;
}

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

const std::map<std::string, std::string>& tool_hints() {
    static const std::map<std::string, std::string> hints{
        {"racecheck",
         "Two threads of a block used the same shared-memory cell, at least one of them writing, with no "
         "__syncthreads() between the two accesses: a barrier is missing (between filling the tile and reading "
         "it, or between reading it and overwriting it for the next tile or plane). The output can come out right "
         "on one GPU and wrong on the next, or at another size."},
        {"synccheck",
         "A __syncthreads() that not every thread of the block reaches (inside an if, or in a loop some threads "
         "leave early): every thread that has not exited must reach the same barrier."},
        {"memcheck",
         "An access outside an array or a shared-memory tile: check the bounds of every index, the halo's "
         "included. (The grader's buffers here are exactly as large as the data: one cell past the end is out "
         "of bounds.)"},
        {"initcheck",
         "A read of device memory that nothing wrote: not the input, not an earlier write of the kernel. Does "
         "the kernel read cells outside the data it was given?"}};
    return hints;
}

std::string source_line(const SanitizerFinding& f) {
    const auto colon = f.location.rfind(':');
    if (f.source_path.empty() || colon == std::string::npos) return "";
    const int wanted = std::atoi(f.location.c_str() + colon + 1);
    std::ifstream in(f.source_path);
    std::string line;
    for (int n = 1; wanted > 0 && std::getline(in, line); ++n)
        if (n == wanted) return trim(line);
    return "";
}

}  // namespace

// ---- Finding the tool and reading its report -----------------------------------------------------------

std::string find_compute_sanitizer(std::string* looked) {
    std::vector<std::string> places;
    std::string found;
    const auto consider = [&](const std::string& path, const std::string& label) {
        places.push_back(label);
        if (found.empty() && is_program_file(path)) found = path;
    };
    if (const char* env = std::getenv("GPULAB_COMPUTE_SANITIZER"); env && *env) {
        consider(env, std::string("$GPULAB_COMPUTE_SANITIZER (") + env + ")");
    } else {
        places.push_back("$GPULAB_COMPUTE_SANITIZER (not set)");
        if (const char* path = std::getenv("PATH"); path && *path) {
            found = program_on_path("compute-sanitizer");
            places.push_back("PATH");
        }
        if (const char* home = std::getenv("CUDA_HOME"); home && *home)
            consider(std::string(home) + "/bin/compute-sanitizer", std::string(home) + "/bin");
        consider("/usr/local/cuda/bin/compute-sanitizer", "/usr/local/cuda/bin");
    }
    if (looked) {
        looked->clear();
        for (const std::string& place : places) *looked += (looked->empty() ? "" : ", ") + place;
    }
    return found;
}

std::vector<SanitizerFinding> parse_sanitizer_output(const std::string& tool, const std::string& output) {
    // "at <function>+0x1f0 in <path>:<line>": where a tool names code.
    static const std::regex at(R"(at (.+?)\+0x[0-9a-fA-F]+ in (\S+?):([0-9]+))");
    std::vector<SanitizerFinding> findings;
    std::istringstream in(output);
    std::string line;
    SanitizerFinding* current = nullptr;
    const auto name_code = [&](std::string& text) {
        // Shortens every code reference in `text` to "<file>:<line>", noting the first in the finding.
        std::string out;
        auto begin = text.cbegin();
        for (std::smatch m; std::regex_search(begin, text.cend(), m, at); begin = m.suffix().first) {
            out.append(begin, m[0].first);
            const std::string where = file_name(m[2]) + ":" + m[3].str();
            if (current->location.empty()) {
                current->kernel = kernel_of(m[1]);
                current->location = where;
                current->source_path = m[2];
            }
            out += "at " + where;
        }
        out.append(begin, text.cend());
        text = out;
    };
    // racecheck names one write and the reads it races with, one "and Read access at ..." line per instruction:
    // the same line of code at two instructions is said once, with the hazards of both.
    static const std::regex counted(R"((.*) \[([0-9]+) hazards?\])");
    std::vector<std::pair<std::string, long>> accesses;
    const auto finish = [&] {
        if (current)
            for (const auto& [text, hazards] : accesses)
                current->sentence += " " + text + (hazards ? " [" + std::to_string(hazards) + " hazards]" : "");
        accesses.clear();
        current = nullptr;
    };
    while (std::getline(in, line)) {
        if (!starts_with(line, kPrefix)) {
            finish();  // the program's own output
            continue;
        }
        std::string body = line.substr(kPrefix.size());
        if (!body.empty() && body[0] == ' ') body = body.substr(1);
        if (trim(body).empty()) {
            finish();
            continue;
        }
        const bool continuation = body[0] == ' ' || body[0] == '\t';
        body = trim(body);
        if (!continuation) {
            finish();
            if (is_summary(body)) continue;
            findings.push_back({tool, "", "", "", {}, ""});
            current = &findings.back();
            name_code(body);
            current->sentence = body;
        } else if (current) {
            const bool bare_location = std::regex_match(body, std::regex(R"(at .+\+0x[0-9a-fA-F]+ in \S+:[0-9]+)"));
            const bool own_words = starts_with(body, "and ");  // racecheck: "... Write access at A" / "and Read access at B"
            name_code(body);
            if (own_words) {
                std::smatch m;
                const bool has_count = std::regex_match(body, m, counted);
                const std::string text = has_count ? m[1].str() : body;
                const long hazards = has_count ? std::stol(m[2].str()) : 0;
                auto same = std::find_if(accesses.begin(), accesses.end(), [&](const auto& a) { return a.first == text; });
                if (same == accesses.end()) accesses.emplace_back(text, hazards);
                else same->second += hazards;
            } else if (!bare_location && current->details.size() < 3) {
                current->details.push_back(body);
            }
        }
    }
    finish();
    return findings;
}

std::string describe_findings(const std::vector<SanitizerFinding>& findings, std::size_t limit) {
    std::ostringstream out;
    std::set<std::string> said;
    std::size_t shown = 0, distinct = 0;
    for (const SanitizerFinding& f : findings) {
        // One problem a line: the kind of problem (the tool's words up to the first place it names) at one line
        // of one kernel, however many instructions, threads and blocks met it.
        const std::string key = f.tool + "|" + f.kernel + "|" + f.location + "|" + f.sentence.substr(0, f.sentence.find(" at "));
        if (!said.insert(key).second) continue;
        ++distinct;
        if (shown == limit) continue;
        ++shown;
        out << "\n  " << f.tool << ": " << f.sentence;
        if (!f.kernel.empty()) out << "\n    in kernel " << f.kernel << (f.location.empty() ? "" : ", " + f.location);
        if (const std::string text = source_line(f); !text.empty()) out << ":   " << text;
        for (const std::string& detail : f.details) out << "\n    " << detail;
    }
    if (distinct > shown) out << "\n  ... and " << distinct - shown << " more";
    std::set<std::string> tools;
    for (const SanitizerFinding& f : findings) tools.insert(f.tool);
    for (const std::string& tool : tools)
        if (tool_hints().count(tool)) out << "\n  (" << tool << ") " << tool_hints().at(tool);
    return out.str();
}

}  // namespace gpulab
