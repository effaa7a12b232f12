// The grader of lab 02 (heat on an insulated square): its test cases. Points, sizes and tolerances come from
// labs/02-heat-2d/lab.json; the handout describes every test by the same name. Each check lives in the file
// named for it: step_checks (the kernels), solve_check (the host code), heat_checks (the scheme's stability,
// judged by grader/shared/heat), technique_checks, speed, reports.
#include "heat_checks.h"
#include "reports.h"
#include "solve_check.h"
#include "speed.h"
#include "square_grading.h"
#include "step_checks.h"
#include "technique_checks.h"

#include "time_step_checks.h"

#include "gpulab/grader_test.h"
#include "gpulab/read_counter.h"

namespace heat_2d_grading {
namespace {

std::string kernel_param_name(const testing::TestParamInfo<int>& info) { return kernel_name(info.param); }

// ---- The kernels --------------------------------------------------------------------------------------

class NaiveStep : public testing::TestWithParam<StepCase> {};
class TiledStep : public testing::TestWithParam<StepCase> {};
class StepScope : public testing::TestWithParam<ScopeCase> {};
class Boundary : public testing::TestWithParam<Grid> {};

TEST_P(NaiveStep, MatchesOracle) { GPULAB_REQUIRE_DEVICE(); check_step(kNaiveKernel, GetParam()); }
TEST_P(TiledStep, MatchesOracle) { GPULAB_REQUIRE_DEVICE(); check_step(kTiledKernel, GetParam()); }
TEST_P(StepScope, TouchesOnlyTheInterior) { GPULAB_REQUIRE_DEVICE(); check_step_scope(GetParam()); }
TEST_P(Boundary, InsulatedWalls) { GPULAB_REQUIRE_DEVICE(); check_boundary(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Sizes, NaiveStep, testing::ValuesIn(step_cases()), step_case_name);
INSTANTIATE_TEST_SUITE_P(Sizes, TiledStep, testing::ValuesIn(step_cases()), step_case_name);
// Both step kernels at the timed size, in a dry run: instances of their MatchesOracle.
const bool kTimedGeometry = gpulab::add_geometry_checks(timed_geometry_checks);
const bool kExpertProfile = gpulab::set_expert_beside(expert_beside_launch);
INSTANTIATE_TEST_SUITE_P(Sizes, StepScope, testing::ValuesIn(scope_cases()), scope_case_name);
INSTANTIATE_TEST_SUITE_P(Sizes, Boundary, testing::ValuesIn(grids_of(section("boundary").at("sizes"))), grid_name);

// ---- The host code ------------------------------------------------------------------------------------

class Solve : public testing::TestWithParam<SolveParam> {};

TEST_P(Solve, MatchesOracle) { GPULAB_REQUIRE_DEVICE(); check_solve(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Starts, Solve, testing::ValuesIn(solve_params()), solve_param_name);

// ---- The scheme's stability, with each kernel ---------------------------------------------------------

TEST(Stability, ChosenDtIsStable) {
    heat_grading::check_chosen_dt(kSquare, section("stability"), "h", student().choose_dt);
}
TEST(Stability, RefusesUnstableDt) { check_refuses_unstable_dt(); }

class Stability : public testing::TestWithParam<int> {};

TEST_P(Stability, MaximumPrinciple) { GPULAB_REQUIRE_DEVICE(); check_maximum_principle(GetParam()); }
TEST_P(Stability, ConservesHeat) { GPULAB_REQUIRE_DEVICE(); check_conserves_heat(GetParam()); }
TEST_P(Stability, CosineDecayRate) { GPULAB_REQUIRE_DEVICE(); check_cosine_decay_rate(GetParam()); }
TEST_P(Stability, BlowsUpAboveBound) { GPULAB_REQUIRE_DEVICE(); check_blows_up_above_bound(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Kernels, Stability, testing::Values(kNaiveKernel, kTiledKernel), kernel_param_name);

// ---- Technique ----------------------------------------------------------------------------------------

class Technique : public testing::TestWithParam<int> {};

TEST_P(Technique, SharedMemoryTile) { GPULAB_REQUIRE_GPU(); check_shared_memory_tile(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Kernels, Technique, testing::Values(kNaiveKernel, kTiledKernel), kernel_param_name);

// Counted in CPU execution mode (gpulab-grade runs it there on a GPU machine too). A plain TEST: its suite is
// "Technique", the parameterized one above is "Kernels/Technique".
TEST(Technique, ComputesFromSharedTile) {
    GPULAB_REQUIRE_DEVICE();
    GPULAB_REQUIRE_READ_COUNTER();
    check_computes_from_shared_tile();
}

// ---- Speed, and the reports ---------------------------------------------------------------------------

TEST(Speed, NaiveThroughput) { GPULAB_REQUIRE_GPU(); check_step_speed(kNaiveKernel); }
TEST(Speed, TiledThroughput) { GPULAB_REQUIRE_GPU(); check_step_speed(kTiledKernel); }
TEST(Report, Roofline) { GPULAB_REQUIRE_GPU(); report_roofline(); }
TEST(Report, Snapshots) { GPULAB_REQUIRE_DEVICE(); report_snapshots(); }
TEST(Report, ScalingStudy) { GPULAB_REQUIRE_GPU(); report_scaling_study(); }

}  // namespace
}  // namespace heat_2d_grading
