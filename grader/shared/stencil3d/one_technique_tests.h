// The tests of a 3D stencil lab that teaches one technique (labs 05 and 06), under the names its lab.json gives
// them: the kernel against the oracle at every correctness size (and, in a dry run, at the timed sizes, with the
// expert beside it in the GPU profile), its structure and its shared-memory reads (technique_checks.h), and its
// speed at every speed case (speed.h). Stability and the reports are shared_tests.cpp's. Lab 04, with two kernels
// and a heat solver, writes its cases out.
#pragma once

#include "speed.h"
#include "stencil_check.h"
#include "technique_checks.h"
#include "timed_technique.h"

#include "gpulab/grader_test.h"

#define STENCIL3D_ONE_TECHNIQUE_TESTS(technique, Suite, StructureTest, ReadsTest, SpeedTest)                 \
    class Suite : public testing::TestWithParam<stencil3d_grading::StencilCase> {};                          \
    TEST_P(Suite, MatchesOracle) {                                                                           \
        GPULAB_REQUIRE_DEVICE();                                                                             \
        stencil3d_grading::check_matches_oracle(technique, GetParam());                                      \
    }                                                                                                        \
    INSTANTIATE_TEST_SUITE_P(Sizes, Suite, testing::ValuesIn(stencil3d_grading::correctness_cases()),        \
                             stencil3d_grading::case_name);                                                  \
    const bool kTimedLaunches = stencil3d_grading::register_timed_launches({{technique, #Suite}}, #Suite);   \
    TEST(Technique, StructureTest) { stencil3d_grading::check_structure(technique); }                        \
    TEST(Technique, ReadsTest) { stencil3d_grading::check_reads(technique); }                                \
    class Speed : public testing::TestWithParam<stencil3d_grading::StencilCase> {};                          \
    TEST_P(Speed, SpeedTest) { stencil3d_grading::check_speed(technique, GetParam()); }                      \
    INSTANTIATE_TEST_SUITE_P(Sizes, Speed, testing::ValuesIn(stencil3d_grading::speed_cases()),              \
                             stencil3d_grading::case_name)
