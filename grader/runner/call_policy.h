// What a solution's compiled code may call, checked before any of it runs (grader/runner/allowed_calls.json).
//
// Student code is loaded into the grader process, so a call to dlopen, getenv, a file or an exit could
// reach the reference, the result channel or the grader itself. The symbols the solution's object
// files leave undefined (what its code calls; not what the linker adds beside it, such as a static
// CUDA runtime) are matched against the policy; on x86-64 their machine code is also searched for
// system-call instructions (inline assembly), and a GPU build's calls to exit are accepted only from
// the stubs nvcc itself writes for __device__ functions.
#pragma once

#include <string>
#include <vector>

namespace gpulab::runner {

struct RefusedCall {
    std::string call;   // the symbol, demangled, or a description of the instruction
    std::string why;    // "reads or changes the environment or the command line"
    std::string where;  // "heat_rod.cu:12: const char* p = getenv(...)", or empty when not found
};

struct CallCheck {
    std::vector<RefusedCall> refused;
    std::string error;  // the check itself could not run (a grader problem, not the student's)
    bool passed() const { return refused.empty() && error.empty(); }
    std::string describe() const;  // for the student
};

// `objects`: the solution's object files; `sources`: its source files (to point at lines); `policy`:
// the JSON file.
CallCheck check_solution_calls(const std::vector<std::string>& objects, const std::vector<std::string>& sources,
                               const std::string& policy);

}  // namespace gpulab::runner
