// The grader of lab 06 (3D seven-point stencil, register tiling). Points, sizes and tolerances
// come from labs/06-stencil3d-register-tiling/lab.json; the handout describes every test by the same name.
// Stability and the reports are registered once for the three labs (grader/shared/stencil3d/
// shared_tests.cpp), and every check is shared with labs 04 and 05.
#include "speed.h"
#include "stencil_check.h"
#include "technique_checks.h"
#include "timed_technique.h"

#include "gpulab/grader_test.h"

namespace {

using namespace stencil3d_grading;
constexpr Technique kTechnique = Technique::register_tiled;

class RegisterTiledStencil : public testing::TestWithParam<StencilCase> {};
TEST_P(RegisterTiledStencil, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    check_matches_oracle(kTechnique, GetParam());
}
INSTANTIATE_TEST_SUITE_P(Sizes, RegisterTiledStencil, testing::ValuesIn(correctness_cases()), case_name);
// The kernel at the timed sizes, in a dry run (instances of RegisterTiledStencil.MatchesOracle), with the expert beside it.
const bool kTimedLaunches = register_timed_launches({{kTechnique, "RegisterTiledStencil"}}, "RegisterTiledStencil");

TEST(Technique, RegisterTiling) { check_structure(kTechnique); }
TEST(Technique, ComputesFromSharedPlane) { check_reads(kTechnique); }

class Speed : public testing::TestWithParam<StencilCase> {};
TEST_P(Speed, RegisterTiledThroughput) { check_speed(kTechnique, GetParam()); }
INSTANTIATE_TEST_SUITE_P(Sizes, Speed, testing::ValuesIn(speed_cases()), case_name);

}  // namespace
