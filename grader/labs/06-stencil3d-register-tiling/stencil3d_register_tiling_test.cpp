// The grader of lab 06 (3D seven-point stencil, register tiling). Points, sizes and tolerances
// come from labs/06-stencil3d-register-tiling/lab.json; the handout describes every test by the same name.
// The checks themselves are shared with labs 04 and 05 (grader/shared/stencil3d/).
#include "heat_checks.h"
#include "speed.h"
#include "stencil_check.h"
#include "technique_checks.h"

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

TEST(Technique, RegisterTiling) { check_structure(kTechnique); }
TEST(Technique, ComputesFromSharedPlane) { check_reads(kTechnique); }

class Stability : public testing::TestWithParam<KernelPrecision> {};
TEST_P(Stability, MaximumPrinciple) {
    GPULAB_REQUIRE_DEVICE();
    check_maximum_principle(GetParam().technique, GetParam().precision);
}
TEST_P(Stability, SineModeDecayRate) {
    GPULAB_REQUIRE_DEVICE();
    check_sine_decay(GetParam().technique, GetParam().precision);
}
TEST_P(Stability, GrowsAboveBound) {
    GPULAB_REQUIRE_DEVICE();
    check_growth_above_bound(GetParam().technique, GetParam().precision);
}
INSTANTIATE_TEST_SUITE_P(Kernels, Stability, testing::ValuesIn(kernel_precisions({kTechnique})), kernel_precision_name);

class Speed : public testing::TestWithParam<StencilCase> {};
TEST_P(Speed, RegisterTiledThroughput) { check_speed(kTechnique, GetParam()); }
INSTANTIATE_TEST_SUITE_P(Sizes, Speed, testing::ValuesIn(speed_cases()), case_name);

TEST(Report, Progression) { report_progression(); }
TEST(Report, PrecisionDrift) {
    GPULAB_REQUIRE_DEVICE();
    report_precision_drift(kTechnique);
}

}  // namespace
