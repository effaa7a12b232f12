// The sanitizer test's reading of compute-sanitizer's reports (gpulab/sanitizer_check.h), on the tools' own
// words: as compute-sanitizer 2025.3 printed them on an H100
// for small planted bugs and for the labs' planted races. No GPU needed.
#include "gpulab/sanitizer_check.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace {

using gpulab::parse_sanitizer_output;

const char* const kRacecheck =
    "========= COMPUTE-SANITIZER\n"
    "[gpulab-sanitizer] workload started\n"
    "========= Error: Race reported between Write access at void stencil3d::stencil_coarsened<float>(const T1 *, T1 *, "
    "int, int, int, stencil3d::Coefficients<T1>)+0xe30 in /b/labs/05/stencil3d_coarsening.cu:50\n"
    "=========     and Read access at void stencil3d::stencil_coarsened<float>(const T1 *, T1 *, int, int, int, "
    "stencil3d::Coefficients<T1>)+0xc80 in stencil3d_coarsening.cu:43 [2304 hazards]\n"
    "=========     and Read access at void stencil3d::stencil_coarsened<float>(const T1 *, T1 *, int, int, int, "
    "stencil3d::Coefficients<T1>)+0xca0 in stencil3d_coarsening.cu:43 [23088 hazards]\n"
    "=========     and Read access at void stencil3d::stencil_coarsened<float>(const T1 *, T1 *, int, int, int, "
    "stencil3d::Coefficients<T1>)+0xcb0 in stencil3d_coarsening.cu:44 [17220 hazards]\n"
    "========= \n"
    "========= Error: Race reported between Write access at void stencil3d::stencil_coarsened<float>(const T1 *, T1 *, "
    "int, int, int, stencil3d::Coefficients<T1>)+0x10f0 in /b/labs/05/stencil3d_coarsening.cu:50\n"
    "=========     and Read access at void stencil3d::stencil_coarsened<float>(const T1 *, T1 *, int, int, int, "
    "stencil3d::Coefficients<T1>)+0xf40 in stencil3d_coarsening.cu:43 [2304 hazards]\n"
    "========= \n"
    "[gpulab-sanitizer] workload finished\n"
    "========= RACECHECK SUMMARY: 10 hazards displayed (10 errors, 0 warnings)\n";

// Blocks of one warp and no barrier: racecheck calls the race a warning, and exits 0.
const char* const kRacecheckWarning =
    "========= Warning: Race reported between Write access at heat_2d::ftcs_tiled(const float *, float *, int, int, "
    "float)+0x2a0 in heat_2d.cu:47\n"
    "=========     and Read access at heat_2d::ftcs_tiled(const float *, float *, int, int, float)+0x340 in "
    "heat_2d.cu:59 [6364 hazards]\n"
    "=========     and Read access at heat_2d::ftcs_tiled(const float *, float *, int, int, float)+0x350 in "
    "heat_2d.cu:59 [296 hazards]\n"
    "========= \n"
    "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n";

const char* const kMemcheck =
    "========= COMPUTE-SANITIZER\n"
    "========= Invalid __shared__ write of size 4 bytes\n"
    "=========     at oob_shared(float *)+0xa0 in probe.cu:34\n"
    "=========     by thread (63,0,0) in block (0,0,0)\n"
    "=========     Address 0x400 is out of bounds\n"
    "=========\n"
    "========= Invalid __shared__ write of size 4 bytes\n"
    "=========     at oob_shared(float *)+0xa0 in probe.cu:34\n"
    "=========     by thread (63,0,0) in block (1,0,0)\n"
    "=========     Address 0x400 is out of bounds\n"
    "=========\n"
    "========= ERROR SUMMARY: 2 errors\n";

const char* const kSynccheck =
    "========= COMPUTE-SANITIZER\n"
    "========= Barrier error detected. Divergent thread(s) in warp.\n"
    "=========     at divergent_barrier(float *)+0xc0 in probe.cu:29\n"
    "=========     by thread (32,0,0) in block (0,0,0)\n"
    "=========\n"
    "========= ERROR SUMMARY: 1 error\n";

const char* const kClean =
    "========= COMPUTE-SANITIZER\n"
    "[probe] clean: cudaSuccess\n"
    "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n";

TEST(SanitizerReport, RacecheckNamesKernelLinesAndTheToolsWords) {
    const auto found = parse_sanitizer_output("racecheck", kRacecheck);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].kernel, "stencil3d::stencil_coarsened<float>");
    EXPECT_EQ(found[0].location, "stencil3d_coarsening.cu:50");
    EXPECT_EQ(found[0].source_path, "/b/labs/05/stencil3d_coarsening.cu");
    // One line of code at two instructions: said once, with the hazards of both.
    EXPECT_EQ(found[0].sentence,
              "Error: Race reported between Write access at stencil3d_coarsening.cu:50 and Read access at "
              "stencil3d_coarsening.cu:43 [25392 hazards] and Read access at stencil3d_coarsening.cu:44 [17220 hazards]");
    // The same race at another instruction of the same line is said once.
    const std::string text = gpulab::describe_findings(found);
    EXPECT_EQ(text.find("Race reported"), text.rfind("Race reported")) << text;
    EXPECT_NE(text.find("(racecheck) Two threads of a block"), std::string::npos) << text;
}

TEST(SanitizerReport, RacecheckWarningIsAFinding) {
    const auto found = parse_sanitizer_output("racecheck", kRacecheckWarning);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].kernel, "heat_2d::ftcs_tiled");
    EXPECT_EQ(found[0].sentence,
              "Warning: Race reported between Write access at heat_2d.cu:47 and Read access at heat_2d.cu:59 [6660 hazards]");
}

TEST(SanitizerReport, MemcheckKeepsWhoAndWhereOncePerLine) {
    const auto found = parse_sanitizer_output("memcheck", kMemcheck);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].sentence, "Invalid __shared__ write of size 4 bytes");
    EXPECT_EQ(found[0].kernel, "oob_shared");
    EXPECT_EQ(found[0].location, "probe.cu:34");
    ASSERT_EQ(found[0].details.size(), 2u);
    EXPECT_EQ(found[0].details[0], "by thread (63,0,0) in block (0,0,0)");
    // The same problem in two blocks is said once, with the tool's hint.
    const std::string text = gpulab::describe_findings(found);
    EXPECT_EQ(text.find("Invalid __shared__ write"), text.rfind("Invalid __shared__ write")) << text;
    EXPECT_NE(text.find("in kernel oob_shared, probe.cu:34"), std::string::npos) << text;
    EXPECT_NE(text.find("(memcheck) An access outside"), std::string::npos) << text;
}

TEST(SanitizerReport, SynccheckAndACleanReport) {
    const auto found = parse_sanitizer_output("synccheck", kSynccheck);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].sentence, "Barrier error detected. Divergent thread(s) in warp.");
    EXPECT_EQ(found[0].kernel, "divergent_barrier");
    EXPECT_TRUE(parse_sanitizer_output("racecheck", kClean).empty());
}

TEST(SanitizerReport, QuotesTheSourceLine) {
    const auto dir = std::filesystem::temp_directory_path() / "gpulab-sanitizer-selftest";
    std::filesystem::create_directories(dir);
    const auto source = dir / "probe.cu";
    std::ofstream(source) << "line one\n    t[threadIdx.x + 1] = 1.f;  // past the end\n";
    const std::string report = "========= Invalid __shared__ write of size 4 bytes\n"
                               "=========     at oob_shared(float *)+0xa0 in " + source.string() + ":2\n";
    const std::string text = gpulab::describe_findings(parse_sanitizer_output("memcheck", report));
    EXPECT_NE(text.find("probe.cu:2:   t[threadIdx.x + 1] = 1.f;  // past the end"), std::string::npos) << text;
    std::filesystem::remove_all(dir);
}

TEST(SanitizerReport, FindsTheToolWhereItIsSaidToBe) {
    ::setenv("GPULAB_COMPUTE_SANITIZER", "/bin/true", 1);
    EXPECT_EQ(gpulab::find_compute_sanitizer(), "/bin/true");
    ::setenv("GPULAB_COMPUTE_SANITIZER", "/nonexistent/compute-sanitizer", 1);
    std::string looked;
    EXPECT_EQ(gpulab::find_compute_sanitizer(&looked), "");
    EXPECT_NE(looked.find("/nonexistent/compute-sanitizer"), std::string::npos) << looked;
    ::unsetenv("GPULAB_COMPUTE_SANITIZER");
}

}  // namespace
