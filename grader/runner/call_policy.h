// What a solution's code may call, checked before any of it runs (grader/runner/allowed_calls.json).
//
// Student code is loaded into the grader process, so a call to dlopen, getenv, a file or an exit could
// reach the reference, the result channel or the grader itself. The symbols the solution's object
// files leave undefined (what its code calls; not what the linker adds beside it, such as a static
// CUDA runtime) are matched against the policy; on x86-64 their machine code is also searched for
// system-call instructions (inline assembly), and a GPU build's calls to exit are accepted only from
// the stubs nvcc itself writes for __device__ functions.
//
// The labs also grade kernels the student writes, so libraries that compute the result (cuBLAS, Thrust,
// CUTLASS, ...) are refused by the policy's "library" rules, three ways: the #include lines of the
// student's files, before anything is built (CPU execution mode cannot even compile Thrust); the calls
// the objects make (a linked library such as cuBLAS); and the symbols the objects define (a header-only
// library such as Thrust is compiled into the student's own objects).
#pragma once

#include <string>
#include <vector>

namespace gpulab::runner {

struct RefusedCall {
    std::string call;   // the symbol, demangled, or a description of the instruction
    std::string why;    // "reads or changes the environment or the command line"
    std::string where;  // "heat_rod.cu:12: const char* p = getenv(...)", or empty when not found
    std::string verb = "calls";  // or "includes" (a header), "compiles in" (a header-only library's code)
    std::string library;         // the policy rule's "library" ("cuBLAS"), empty for other rules
    bool listed = true;          // false: refused only for not being on the allowed list
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

// The headers the solution's sources #include (and the files next to them that those include in quotes),
// matched against the policy's "includes" patterns: nothing needs to be built.
CallCheck check_solution_includes(const std::vector<std::string>& sources, const std::string& policy);

}  // namespace gpulab::runner
