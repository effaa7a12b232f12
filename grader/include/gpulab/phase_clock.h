// Where a test's seconds go: a named span of the grader's own work (an oracle, an upload, a timing
// loop), printed as "[phase] <test> <span> <ms> ms" when GPULAB_PHASES is set. grader/bench/grading_times.py
// sets it and sums the spans per test, so that a cut in grading time is aimed at what costs.
#pragma once

#include <chrono>
#include <string>

namespace gpulab {

class PhaseClock {
public:
    explicit PhaseClock(std::string span);
    ~PhaseClock();
    PhaseClock(const PhaseClock&) = delete;
    PhaseClock& operator=(const PhaseClock&) = delete;

private:
    std::string span_;
    std::chrono::steady_clock::time_point start_;
    bool on_;
};

}  // namespace gpulab
