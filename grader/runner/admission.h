// Whether a lab's tests count at all: one verdict, with the reason a student reads, decided by admit().
//
// Four gates can stop a solution, and grading reaches them one stage at a time:
//   1. before anything is built: an #include of a library that computes the result (Thrust, cuBLAS, ...);
//   2. a build that failed: where the objects compiled from the student's current code call what a rule
//      refuses (cuBLAS fails to link), that rule is the reason, not the linker's message; else it is the
//      compiler's errors;
//   3. after a build, before anything runs: a call the policy refuses;
//   4. after the tests ran: a result channel that carried what the grader did not write (tampering).
// Each stage adds what it learnt to AdmissionFacts, and admit() decides on everything known so far, so the
// gates' order and wording live in one function whichever stage ends the grading. grade_lab (lab_grading.cpp)
// goes on to the next stage only while admit() admits, and turns the verdict it ends with into the lab's
// score in one place (score_not_admitted, scoring.h).
#pragma once

#include "call_policy.h"
#include "lab_manifest.h"

#include "gpulab/lab_config.h"

#include <string>
#include <vector>

namespace gpulab::runner {

// not_buildable_in_cpu_mode: the build failed in CPU execution mode on a CUDA feature that mode does not run (the
// code may be right: it must be graded on a GPU), told apart from a compile error where the verdict is made.
enum class Admission { admitted, refused, not_compiled, not_buildable_in_cpu_mode, tampered };

struct AdmissionVerdict {
    Admission admission = Admission::admitted;
    std::string reason;  // what the student reads: what was refused, the compiler's errors, what was forged
    bool admitted() const { return admission == Admission::admitted; }
    bool built() const { return admission != Admission::not_compiled && admission != Admission::not_buildable_in_cpu_mode; }
};

// The solution's build for one way of running kernels (the GPU, CPU execution mode).
struct SolutionBuild {
    bool built = true;
    std::string errors;  // the compiler's, where it did not build
    // Where it did not build: the calls of its current objects that a rule refuses (check_calls_after_failed_build).
    CallCheck refused_in_failed_build;
    // Where it built: what its objects call (check_calls).
    CallCheck calls;
};

// What grading has learnt about the solution so far. A check that did not run (yet), or does not apply,
// is a CallCheck with nothing refused.
struct AdmissionFacts {
    CallCheck includes;                 // stage 1
    std::vector<SolutionBuild> builds;  // stages 2 and 3: each mode's build, in the order they were built
    std::string tampering;              // stage 4: SessionResult::tampering
};

AdmissionVerdict admit(const AdmissionFacts& facts);

// The word for a verdict in a lab's table: "refused", "not compiled" (either kind of build failure), "tampered".
const char* admission_word(Admission admission);
// The verdict in summary.json, the class gradebook and Gradescope's output ("admission": {"verdict": key, "reason":
// ...}): "admitted", "refused", "not_compiled", "cpu_mode_cannot_build", "tampered"; and back (an unknown key: admitted).
const char* admission_key(Admission admission);
Admission admission_of_key(const std::string& key);

// ---- the checks whose results admit() reads (call_policy.h). Each passes where the call check does not
// apply (a variant that switches it off, a prebuilt reference); a check that cannot run throws UsageError.

// Stage 1: what the solution's sources #include.
CallCheck check_includes(const Solution& solution, const Json& config);
// Stage 3: what the objects of a build call.
CallCheck check_calls(const Solution& solution, const Build& build, const Json& config);
// Stage 2, after a build that failed: the calls a rule refuses in the objects compiled from the student's
// current code (each newer than its source). A call that is merely not on the allowed list stays the linker's
// to report (a function declared but never written), and where the check cannot run the compiler's message
// stands: both pass.
CallCheck check_calls_after_failed_build(const Solution& solution, const Build& build, const Json& config);

}  // namespace gpulab::runner
