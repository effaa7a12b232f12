// The grader of lab 05 (3D seven-point stencil, thread coarsening in z). Points, sizes and tolerances
// come from labs/05-stencil3d-coarsening/lab.json; the handout describes every test by the same name.
// Stability and the reports are registered once for the three labs (grader/shared/stencil3d/
// shared_tests.cpp), and every check is shared with labs 04 and 06.
#include "speed.h"
#include "stencil_check.h"
#include "technique_checks.h"
#include "timed_technique.h"

#include "gpulab/grader_test.h"

namespace {

using namespace stencil3d_grading;
constexpr Technique kTechnique = Technique::coarsened;

class CoarsenedStencil : public testing::TestWithParam<StencilCase> {};
TEST_P(CoarsenedStencil, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    check_matches_oracle(kTechnique, GetParam());
}
INSTANTIATE_TEST_SUITE_P(Sizes, CoarsenedStencil, testing::ValuesIn(correctness_cases()), case_name);
// The kernel at the timed sizes, in a dry run (instances of CoarsenedStencil.MatchesOracle), with the expert beside it.
const bool kTimedLaunches = register_timed_launches({{kTechnique, "CoarsenedStencil"}}, "CoarsenedStencil");

TEST(Technique, CoarsenedInZ) { check_structure(kTechnique); }
TEST(Technique, ComputesFromSharedPlanes) { check_reads(kTechnique); }

class Speed : public testing::TestWithParam<StencilCase> {};
TEST_P(Speed, CoarsenedThroughput) { check_speed(kTechnique, GetParam()); }
INSTANTIATE_TEST_SUITE_P(Sizes, Speed, testing::ValuesIn(speed_cases()), case_name);

}  // namespace
