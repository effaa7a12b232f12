// The roofline's arithmetic and its JSON (gpulab/roofline.h), without a GPU: what the report would say of
// given measurements, and that a kernel left off the chart carries its reason and no figures.
#include "gpulab/roofline.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

gpulab::Roofs h100_like() {
    gpulab::Roofs roofs;
    roofs.copy_gbs = 3000;
    roofs.fp32_gflops = 60000;
    roofs.fp64_gflops = 30000;
    roofs.int32_gops = 30000;
    return roofs;
}

TEST(Roofline, ComputeRoofFollowsTheArithmetic) {
    const gpulab::Roofs roofs = h100_like();
    EXPECT_EQ(gpulab::compute_roof(roofs, "fp32"), 60000);
    EXPECT_EQ(gpulab::compute_roof(roofs, "fp64"), 30000);
    EXPECT_EQ(gpulab::compute_roof(roofs, "int32"), 30000);
    EXPECT_EQ(gpulab::compute_roof(roofs, "bf16"), 0);  // unknown: no compute roof, the memory roof alone
}

TEST(Roofline, AbsentKernelKeepsItsReasonAndNoFigures) {
    gpulab::RooflineKernel absent{"expert", "expert", "fp32", 5e9, 8e9};
    absent.absent = "no expert kernel in this build";
    const gpulab::Roofline r = gpulab::measure_roofline(h100_like(), "a rod", {absent}, gpulab::TimingOptions{});
    ASSERT_EQ(r.points.size(), 1u);
    EXPECT_EQ(r.points[0].absent, "no expert kernel in this build");
    EXPECT_DOUBLE_EQ(r.points[0].intensity, 0.625);
    // Memory-bound: the roof at 0.625 flop/byte is the copy's 3000 GB/s times it.
    EXPECT_DOUBLE_EQ(r.points[0].roof_gops, 1875);
    const nlohmann::json j = nlohmann::json::parse(gpulab::roofline_json(r));
    EXPECT_EQ(j["points"][0]["absent"], "no expert kernel in this build");
    EXPECT_FALSE(j["points"][0].contains("gops"));
    EXPECT_EQ(j["roofs"]["copy_gbs"], 3000);
    EXPECT_EQ(j["problem"], "a rod");
}

TEST(Roofline, ComputeBoundRoofIsThePeak) {
    gpulab::RooflineKernel gemm{"cuBLAS", "library", "fp32", 2.0 * 4096.0 * 4096 * 4096, 12.0 * 4096 * 4096};
    gemm.absent = "not timed here";
    const gpulab::Roofline r = gpulab::measure_roofline(h100_like(), "C = A B", {gemm}, gpulab::TimingOptions{});
    EXPECT_NEAR(r.points[0].intensity, 4096.0 / 6, 1e-9);
    EXPECT_DOUBLE_EQ(r.points[0].roof_gops, 60000);
}

}  // namespace
