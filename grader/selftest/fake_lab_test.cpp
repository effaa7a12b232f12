// Tests that misbehave on purpose, for session_test.cpp. Never graded, never run by ctest directly.
#include "gpulab/grader_test.h"

#include <csignal>
#include <stdexcept>
#include <unistd.h>

TEST(Fake, Passes) { gpulab::record_figure("42", ">= 1"); }
TEST(Fake, Fails) { FAIL() << "planted failure"; }
TEST(Fake, Segfaults) { std::raise(SIGSEGV); }
TEST(Fake, Hangs) {
    for (;;) ::pause();
}
TEST(Fake, RunsAfterTheCrash) { SUCCEED(); }
TEST(Fake, ThrowsTodo) { throw std::logic_error("TODO(lab-0) step 1: not written yet"); }
TEST(Fake, NeedsGpu) { GPULAB_REQUIRE_GPU(); }

// Two instances of one hanging test: the second must not wait out a time limit of its own.
class FakeHang : public testing::TestWithParam<int> {};
TEST_P(FakeHang, EveryInstance) {
    for (;;) ::pause();
}
INSTANTIATE_TEST_SUITE_P(Twice, FakeHang, testing::Values(1, 2));
