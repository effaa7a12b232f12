// Reading a GPU build's registers, local and static shared memory (gpulab/kernel_resources.h): cuobjdump's text, and
// matching a CPU execution mode launch to its kernel by the types a kernel template's launch deduced.
#include "gpulab/kernel_resources.h"

#include <gtest/gtest.h>

namespace gpulab {
namespace {

// cuobjdump --dump-resource-usage of a build for two architectures (CUDA 13, lab 01 with a run-time indexed array).
const char* const kTwoArchitectures = R"(
Fatbin elf code:
================
arch = sm_80
code version = [1,8]

Resource usage:
 Common:
  GLOBAL:0
 Function _ZN8heat_rod13ftcs_interiorEPKfPfif:
  REG:16 STACK:16 SHARED:0 LOCAL:0 CONSTANT[0]:552 TEXTURE:0 SURFACE:0 SAMPLER:0

Fatbin elf code:
================
arch = sm_90
code version = [1,8]

Resource usage:
 Common:
  GLOBAL:0
 Function _ZN8heat_rod14insulated_endsEPfi:
  REG:8 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:540 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN8heat_rod13ftcs_interiorEPKfPfif:
  REG:15 STACK:16 SHARED:1024 LOCAL:4 CONSTANT[0]:552 TEXTURE:0 SURFACE:0 SAMPLER:0
)";

TEST(KernelResources, CuobjdumpTextOfTheCourseGpus) {
    const GpuBuildResources r = parse_cuobjdump_resource_usage(kTwoArchitectures);
    ASSERT_TRUE(r.available);
    EXPECT_EQ(r.arch, "sm_90");
    ASSERT_EQ(r.kernels.size(), 2u);
    const KernelResources& k = r.kernels[1];
    EXPECT_EQ(k.mangled, "_ZN8heat_rod13ftcs_interiorEPKfPfif");
    EXPECT_EQ(k.name, "heat_rod::ftcs_interior(float const*, float*, int, float)");
    EXPECT_EQ(k.registers, 15);
    EXPECT_EQ(k.local_per_thread(), 20u);
    EXPECT_EQ(k.shared_bytes, 1024u);
}

TEST(KernelResources, NotAGpuBuildSaysWhy) {
    const GpuBuildResources r = read_fatbin_resources("not an ELF file");
    EXPECT_FALSE(r.available);
    EXPECT_FALSE(r.why.empty());
    EXPECT_FALSE(parse_cuobjdump_resource_usage("").available);
}

TEST(KernelResources, TypesOfAKernelAndOfATemplateLaunch) {
    EXPECT_EQ(parameter_types("void stencil3d::stencil_tiled<float>(float const*, float*, int, int, int, "
                              "stencil3d::Coefficients<float>)"),
              (std::vector<std::string>{"float const*", "float*", "int", "int", "int", "stencil3d::Coefficients<float>"}));
    const std::string thunk =
        "gpulab::cpu::DeducedLauncher<stencil3d::naive<float>(float const*, float*, int, int, int, "
        "stencil3d::Coefficients<float>)::{lambda((auto:1)...)#1}>::operator()<float const*&, float*&, int&, int&, "
        "int const&, stencil3d::Coefficients<float>&>(float const*&, float*&, int&, int&, int const&, "
        "stencil3d::Coefficients<float>&) const::{lambda(void const*)#1}::_FUN(void const*)";
    EXPECT_EQ(deduced_argument_types(thunk),
              (std::vector<std::string>{"float const*", "float*", "int", "int", "int", "stencil3d::Coefficients<float>"}));
    EXPECT_TRUE(deduced_argument_types("heat_rod::ftcs_interior(float const*, float*, int, float)").empty());
}

TEST(KernelResources, AnUnmatchedLaunchIsNotGuessed) {
    GpuBuildResources r = parse_cuobjdump_resource_usage(kTwoArchitectures);
    EXPECT_EQ(match_kernel(r, nullptr, "ftcs_interior", 0).kernel, &r.kernels[1]);
    const KernelMatch none = match_kernel(r, nullptr, "another_kernel", 0);
    EXPECT_EQ(none.kernel, nullptr);
    EXPECT_NE(none.why.find("another_kernel"), std::string::npos);
    r.kernels.push_back(r.kernels[1]);
    r.kernels.back().mangled = "_ZN6other13ftcs_interiorEPKfPfif";
    r.kernels.back().name = "other::ftcs_interior(float const*, float*, int, float)";
    const KernelMatch two = match_kernel(r, nullptr, "ftcs_interior", 0);
    EXPECT_EQ(two.kernel, nullptr);
    EXPECT_NE(two.why.find("fits 2 kernels"), std::string::npos);
}

}  // namespace
}  // namespace gpulab
