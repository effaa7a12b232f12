// The grader of lab 01 (heat in a 1D rod): its test cases. Points, sizes and tolerances come from
// labs/01-heat-rod/lab.json; the handout describes every test by the same name. Each check lives in the file
// named for it: step_checks (the kernels), solve_check (the host code), heat_checks (the scheme's stability,
// judged by grader/shared/heat), speed (the timed tests).
#include "heat_checks.h"
#include "rod_grading.h"
#include "solve_check.h"
#include "speed.h"
#include "step_checks.h"

#include "time_step_checks.h"

#include "gpulab/grader_test.h"

namespace heat_rod_grading {
namespace {

// ---- The kernels --------------------------------------------------------------------------------------

class Step : public testing::TestWithParam<StepCase> {};
class StepScope : public testing::TestWithParam<int> {};
class Boundary : public testing::TestWithParam<int> {};

TEST_P(Step, MatchesOracle) { GPULAB_REQUIRE_DEVICE(); check_step(GetParam()); }
TEST_P(StepScope, TouchesOnlyTheInterior) { GPULAB_REQUIRE_DEVICE(); check_step_scope(GetParam()); }
TEST_P(Boundary, InsulatedEnds) { GPULAB_REQUIRE_DEVICE(); check_boundary(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Sizes, Step, testing::ValuesIn(step_cases()), step_case_name);
INSTANTIATE_TEST_SUITE_P(Sizes, StepScope, testing::ValuesIn(sizes_of("step")), size_name);
INSTANTIATE_TEST_SUITE_P(Sizes, Boundary, testing::ValuesIn(sizes_of("boundary")), size_name);
// launch_step at the timed size, in a dry run: an instance of Step.MatchesOracle. Its buffers as speed.cpp's timed
// step draws them (temperatures 0.5 ... 2.5, the output not read), for the launches counted in its place.
const bool kTimedGeometry = gpulab::add_geometry_checks([] {
    const gpulab::BufferDraw in = gpulab::BufferDraw::floats(gpulab::FreshDraw{0, 0.5f, 1.0f / (1 << 19)});
    return gpulab::drawn_as(timed_geometry_checks(), {in, gpulab::BufferDraw::output_like(in)});
});
// The expert's step beside it in the GPU profile (Report.GpuProfile), where the build has the expert.
const bool kExpertProfile = gpulab::set_expert_beside(expert_beside_launch);

// ---- The host code ------------------------------------------------------------------------------------

class Solve : public testing::TestWithParam<std::string> {};

TEST_P(Solve, MatchesOracle) { GPULAB_REQUIRE_DEVICE(); check_solve(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Starts, Solve, testing::ValuesIn(solve_case_names()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

// ---- The scheme's stability -----------------------------------------------------------------------------

TEST(Stability, ChosenDtIsStable) {
    heat_grading::check_chosen_dt(kRod, section("stability"), "dx", student().choose_dt);
}
TEST(Stability, RefusesUnstableDt) { check_refuses_unstable_dt(); }
TEST(Stability, MaximumPrinciple) { GPULAB_REQUIRE_DEVICE(); check_maximum_principle(); }
TEST(Stability, ConservesHeat) { GPULAB_REQUIRE_DEVICE(); check_conserves_heat(); }
TEST(Stability, CosineDecayRate) { GPULAB_REQUIRE_DEVICE(); check_cosine_decay_rate(); }
TEST(Stability, BlowsUpAboveBound) { GPULAB_REQUIRE_DEVICE(); check_blows_up_above_bound(); }

// ---- Speed, and the roofline report -----------------------------------------------------------------

TEST(Speed, StepThroughput) { GPULAB_REQUIRE_GPU(); check_step_speed(); }
TEST(Report, Roofline) { GPULAB_REQUIRE_GPU(); report_roofline(); }

}  // namespace
}  // namespace heat_rod_grading
