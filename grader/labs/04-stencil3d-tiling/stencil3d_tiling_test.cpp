// The grader of lab 04 (3D seven-point stencil: naive and tiled kernels, and a 3D heat solver). Points,
// sizes and tolerances come from labs/04-stencil3d-tiling/lab.json; the handout describes every test by
// the same name: this file holds its cases. Stability and the reports are registered once for the three labs
// (grader/shared/stencil3d/shared_tests.cpp), the kernels' checks are shared with labs 05 and 06, and the heat
// solver's are in solver_checks.cpp.
#include "solver_checks.h"
#include "speed.h"
#include "stencil_check.h"
#include "technique_checks.h"
#include "timed_technique.h"

#include "gpulab/grader_test.h"

namespace {

using namespace stencil3d_grading;

// ---- The kernels --------------------------------------------------------------------------------------

class NaiveStencil : public testing::TestWithParam<StencilCase> {};
class TiledStencil : public testing::TestWithParam<StencilCase> {};

TEST_P(NaiveStencil, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    check_matches_oracle(Technique::naive, GetParam());
}

TEST_P(TiledStencil, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    check_matches_oracle(Technique::tiled, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Sizes, NaiveStencil, testing::ValuesIn(correctness_cases()), case_name);
// Both kernels at the timed sizes, in a dry run (instances of their MatchesOracle); the expert beside the tiled one.
const bool kTimedLaunches =
    register_timed_launches({{Technique::naive, "NaiveStencil"}, {Technique::tiled, "TiledStencil"}}, "TiledStencil");
INSTANTIATE_TEST_SUITE_P(Sizes, TiledStencil, testing::ValuesIn(correctness_cases()), case_name);

TEST(Technique, SharedMemoryTile) {
    check_structure(Technique::naive);
    check_structure(Technique::tiled);
}

TEST(Technique, ComputesFromSharedTile) { check_reads(Technique::tiled); }

// ---- The heat solver's host code (solver_checks.cpp) -------------------------------------------------------

TEST(Stability, ChosenDtIsStable) { check_chosen_dt(); }
TEST(Stability, RefusesUnstableDt) { check_refuses_unstable_dt(); }

class Solve : public testing::TestWithParam<SolveParam> {};

TEST_P(Solve, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    check_solve(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, Solve, testing::ValuesIn(solve_params()),
                         [](const auto& info) { return solve_case_name(info.param); });

// ---- Speed ---------------------------------------------------------------------------------------

class Speed : public testing::TestWithParam<StencilCase> {};

TEST_P(Speed, NaiveThroughput) { check_speed(Technique::naive, GetParam()); }
TEST_P(Speed, TiledThroughput) { check_speed(Technique::tiled, GetParam()); }

INSTANTIATE_TEST_SUITE_P(Sizes, Speed, testing::ValuesIn(speed_cases()), case_name);

}  // namespace
