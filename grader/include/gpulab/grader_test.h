// What a lab's grader tests include: GoogleTest plus the few conventions every lab shares.
#pragma once

#include "gpulab/device_facts.h"

#include <gtest/gtest.h>

#include <string>

// Tests that launch kernels start with GPULAB_REQUIRE_DEVICE(): they run on a GPU, or on the CPU in
// CPU execution mode, and are skipped with a visible reason when neither is available.
#define GPULAB_REQUIRE_DEVICE()                                                                 \
    do {                                                                                        \
        if (!::gpulab::device_facts().available)                                                \
            GTEST_SKIP() << "needs a CUDA GPU: " << ::gpulab::device_facts().unavailable_reason; \
    } while (0)

// Speed and technique tests need real hardware: CPU execution mode checks correctness only.
#define GPULAB_REQUIRE_GPU()                                                                       \
    do {                                                                                           \
        if (!::gpulab::device_facts().available)                                                   \
            GTEST_SKIP() << "needs a CUDA GPU: " << ::gpulab::device_facts().unavailable_reason;    \
        if (::gpulab::device_facts().emulated)                                                     \
            GTEST_SKIP() << "needs a real GPU: CPU execution mode checks correctness only, so speed " \
                            "and technique are graded on a GPU";                                   \
    } while (0)

// Like EXPECT_TRUE / ASSERT_TRUE, but the failure shows only the message streamed into it: students
// read "f[0] should equal f[1] ...", not GoogleTest's "Value of: ... Actual: false".
#define GPULAB_EXPECT(condition) \
    switch (0)                   \
    case 0:                      \
    default:                     \
        if (condition)           \
            ;                    \
        else                     \
            ADD_FAILURE()
#define GPULAB_ASSERT(condition) \
    switch (0)                   \
    case 0:                      \
    default:                     \
        if (condition)           \
            ;                    \
        else                     \
            FAIL()

namespace gpulab {

// The figure the grade table shows for this test, and the bar it was held to.
void record_figure(const std::string& measured, const std::string& threshold);

// A fault on the grader's side (a course photo that cannot be read, a broken config): no submission
// may be charged for it. Records the property "grader_error" with the message and fails the test with
// "grader error: <what_and_fix>"; gpulab-grade stops and reports such a test as a grader error, never
// as points lost. Say what is wrong and how to fix it, e.g. "data/images/camera.png cannot be read
// (truncated PNG?): restore it from git (git checkout data/images/camera.png)". Like ADD_FAILURE()
// it does not return: the caller returns from the test.
void fail_as_grader_error(const std::string& what_and_fix);

// The running test's full name ("Speed.TiledThroughput"), "" outside a test: records that accumulate over one test
// (every series it times, every launch it counts) start afresh when it changes.
std::string current_test_name();

}  // namespace gpulab
