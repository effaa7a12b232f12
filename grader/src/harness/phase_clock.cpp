#include "gpulab/phase_clock.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace gpulab {

namespace {
bool phases_wanted() {
    static const bool wanted = std::getenv("GPULAB_PHASES") != nullptr;
    return wanted;
}
}  // namespace

PhaseClock::PhaseClock(std::string span) : span_(std::move(span)), start_(std::chrono::steady_clock::now()), on_(phases_wanted()) {}

PhaseClock::~PhaseClock() {
    if (!on_) return;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
    const testing::TestInfo* test = testing::UnitTest::GetInstance()->current_test_info();
    std::printf("[phase] %s.%s %s %.1f ms\n", test ? test->test_suite_name() : "-", test ? test->name() : "-",
                span_.c_str(), ms);
    std::fflush(stdout);
}

}  // namespace gpulab
