// Runs a lab's tests against a built solution, in waves (wave_plan.h): a test that requires others once they
// are decided, and not at all ("not counted") when one did not pass; the timed tests last, alone on the GPU. Each
// wave's parts (the GPU's, CPU execution mode's) are sessions (test_session.h), each test in its own process; CPU
// execution mode's part of a GPU grading runs beside the waves after its own (its read counts beside the sanitizer
// and the timed tests), on all but two of the cores.
#pragma once

#include "grading_plan.h"
#include "test_session.h"

namespace gpulab::runner {

// Every test's one outcome (the untimed ones from an earlier grading where the request says so), the device
// and seed, and, where the result channel was forged, what was wrong (SessionResult::tampering: no wave runs
// after the one that found it). The pictures the tests asked for are drawn before it returns.
SessionResult run_tests(const GradingPlan& plan);

}  // namespace gpulab::runner
