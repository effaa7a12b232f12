// The tests every 3D stencil lab runs the same way, registered once here for labs 04-06: the heat
// scheme's stability checks on each kernel the lab teaches (lab.json "stability.kernels"), and the
// three reports (progression, roofline, precision drift). Each lab's own test file adds its kernels'
// correctness, technique and speed tests.
#include "heat_checks.h"
#include "speed.h"

#include "gpulab/grader_test.h"

namespace stencil3d_grading {
namespace {

Technique technique_named(const std::string& name) {
    for (int k = 0; k < kTechniques; ++k)
        if (name == technique_name(Technique(k))) return Technique(k);
    throw std::runtime_error("lab.json names an unknown stencil kernel: " + name);
}

std::vector<KernelPrecision> stability_params() {
    std::vector<KernelPrecision> params;
    for (const std::string name : section("stability").at("kernels"))
        for (Precision p : {Precision::f32, Precision::f64}) params.push_back({technique_named(name), p});
    return params;
}

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
INSTANTIATE_TEST_SUITE_P(Kernels, Stability, testing::ValuesIn(stability_params()), kernel_precision_name);

TEST(Report, Progression) { report_progression(); }
TEST(Report, Roofline) { report_roofline(); }

// With the most advanced kernel the lab teaches.
TEST(Report, PrecisionDrift) {
    GPULAB_REQUIRE_DEVICE();
    const gpulab::Json& kernels = section("stability").at("kernels");
    report_precision_drift(technique_named(kernels.back().get<std::string>()));
}

}  // namespace
}  // namespace stencil3d_grading
