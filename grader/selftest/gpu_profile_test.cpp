// The GPU profile's reading of ncu's CSV and its "not run" paths (gpulab/gpu_profile.h). No GPU needed: the CSV is
// in the shape ncu 2025.3.1 printed on an H200 with --csv --page raw --print-units base (thousands separators, a units row, quoted
// kernel names with commas), the failures in its words.
#include "gpulab/gpu_profile.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace {

using namespace gpulab;

const char* const kCsv =
    "==PROF== Connected to process 4242 (/b/labs/grade-02-heat-2d-gpu)\n"
    "==PROF== Profiling \"gpulab_profile_marker\" - 0: 0%....50%....100% - 9 passes\n"
    "==PROF== Profiling \"ftcs_naive\" - 1: 0%....50%....100% - 9 passes\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"launch__grid_size\",\"smsp__sass_data_bytes_mem_global_op_ld.sum\","
    "\"sm__warps_active.avg.pct_of_peak_sustained_active\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"inst\",\"%\"\n"
    "\"0\",\"4242\",\"grade-02-heat-2d-gpu\",\"h\",\"gpulab_profile_marker\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\","
    "\"0\",\"9.0\",\"1\",\"0\",\"3.12\"\n"
    "\"1\",\"4242\",\"grade-02-heat-2d-gpu\",\"h\",\"void heat::ftcs_naive<float>(const float *, float *, int, int, "
    "float)\",\"1\",\"7\",\"(32, 8, 1)\",\"(256, 1024, 1)\",\"0\",\"9.0\",\"262,144\",\"1,342,177,280\",\"87.5\"\n"
    "\"2\",\"4242\",\"grade-02-heat-2d-gpu\",\"h\",\"gpulab_profile_marker\",\"1\",\"7\",\"(1, 1, 1)\",\"(2, 1, 1)\","
    "\"0\",\"9.0\",\"2\",\"0\",\"3.12\"\n"
    "\"3\",\"4242\",\"grade-02-heat-2d-gpu\",\"h\",\"ftcs_tiled\",\"1\",\"7\",\"(32, 8, 1)\",\"(256, 1024, 1)\","
    "\"0\",\"9.0\",\"262,144\",\"352,321,536\",\"n/a\"\n"
    "==PROF== Disconnected from process 4242\n";

TEST(GpuProfile, ParsesNcuCsvInBaseUnits) {
    const std::vector<NcuRow> rows = parse_ncu_csv(kCsv);
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[1].kernel, "void heat::ftcs_naive<float>(const float *, float *, int, int, float)");
    EXPECT_DOUBLE_EQ(rows[1].metrics.at(ncu_metric::kGlobalLoadBytes), 1342177280.0);
    EXPECT_DOUBLE_EQ(rows[1].metrics.at(ncu_metric::kAchievedOccupancy), 87.5);
    EXPECT_TRUE(std::isnan(rows[3].metrics.at(ncu_metric::kAchievedOccupancy)));  // "n/a"
    EXPECT_EQ(rows[1].text.at("Grid Size"), "(256, 1024, 1)");
    EXPECT_EQ(marker_launch_index(rows[0]), 0);
    EXPECT_EQ(marker_launch_index(rows[2]), 1);
    EXPECT_EQ(marker_launch_index(rows[1]), -1);
}

TEST(GpuProfile, AttributesKernelsToTheLaunchWhoseMarkerPrecedesThem) {
    std::vector<ProfiledLaunch> names(2);
    names[0].suite = "NaiveStep", names[0].instance = "8192x8192";
    names[1].suite = "TiledStep", names[1].instance = "8192x8192";
    const std::vector<ProfiledLaunch> launches = attribute_rows(parse_ncu_csv(kCsv), names);
    ASSERT_EQ(launches.size(), 2u);
    ASSERT_EQ(launches[0].kernels.size(), 1u);
    ASSERT_EQ(launches[1].kernels.size(), 1u);
    EXPECT_EQ(launches[1].kernels[0].name, "ftcs_tiled");
    EXPECT_DOUBLE_EQ(launches[1].total(ncu_metric::kGlobalLoadBytes), 352321536.0);
    // The H200's figures for the reference's kernels: over 8190^2 interior cells, the tiled kernel's 1.313 floats read
    // per cell, the naive one's 5.002.
    EXPECT_NEAR(launches[1].total(ncu_metric::kGlobalLoadBytes) / 4 / (8190.0 * 8190.0), 1.313, 0.001);
    EXPECT_NEAR(launches[0].total(ncu_metric::kGlobalLoadBytes) / 4 / (8190.0 * 8190.0), 5.002, 0.001);
    GpuProfile profile;
    profile.launches = launches;
    EXPECT_EQ(profile.find("TiledStep", "8192x8192"), &profile.launches[1]);
    EXPECT_EQ(profile.find("TiledStep", "4096x4096"), nullptr);
    // Two launches of one kernel, with the marker grids out of the names' range: still attributed, never dropped.
    const std::vector<ProfiledLaunch> more = attribute_rows(parse_ncu_csv(kCsv), {});
    ASSERT_EQ(more.size(), 2u);
    EXPECT_EQ(more[0].kernels.size(), 1u);
}

TEST(GpuProfile, NamesWhyTheCountersCannotBeRead) {
    const std::string denied =
        "==PROF== Connected to process 77 (/b/grade)\n"
        "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on "
        "the target device 0. For instructions on enabling permissions and to get more information see "
        "https://developer.nvidia.com/ERR_NVGPUCTRPERM\n";
    const std::string why = ncu_failure_reason(denied);
    EXPECT_NE(why.find("ERR_NVGPUCTRPERM"), std::string::npos) << why;
    EXPECT_NE(why.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << why;
    EXPECT_NE(ncu_failure_reason("==ERROR== Failed to profile kernel \"k\" in process 9\n").find("Failed to profile"),
              std::string::npos);
    EXPECT_EQ(ncu_failure_reason(kCsv), "");
}

TEST(GpuProfile, MetricListIsShortAndFixed) {
    const std::vector<std::string>& m = profile_metrics();
    EXPECT_LE(m.size(), 32u);
    for (const char* needed : {ncu_metric::kGlobalLoadBytes, ncu_metric::kSharedLoadConflicts,
                               ncu_metric::kAchievedOccupancy, ncu_metric::kGridSize})
        EXPECT_NE(std::find(m.begin(), m.end(), needed), m.end()) << needed;
}

TEST(GpuProfile, NcuNamedByTheEnvironmentMustExist) {
    ::setenv("GPULAB_NCU", "/nonexistent/ncu", 1);
    std::string looked;
    EXPECT_EQ(find_ncu(&looked), "");
    EXPECT_NE(looked.find("/nonexistent/ncu"), std::string::npos);
    ::unsetenv("GPULAB_NCU");
}

// In CPU execution mode without a graded solution (this self-test), the profile is unavailable with its reason, and
// the check is "not run": recorded, not failed; skipped where it is a test of its own.
TEST(GpuProfile, WithoutCountersTheCheckIsNotRun) {
    const GpuProfile& profile = gpu_profile();
    EXPECT_FALSE(profile.available);
    EXPECT_FALSE(profile.why.empty());
    GpuCounterAgreement how;
    how.outputs = 100;
    how.skip_when_unavailable = false;
    const GpuCounterVerdict v = check_gpu_counters_agree("TiledStep", "8192x8192", 1.31, how);
    EXPECT_FALSE(v.ran);
    EXPECT_TRUE(v.agree);
    EXPECT_EQ(v.why, profile.why);
    EXPECT_FALSE(testing::Test::HasFailure());
}

TEST(GpuProfile, WithoutCountersItsOwnTestIsSkipped) {
    GpuCounterAgreement how;
    how.outputs = 100;
    const GpuCounterVerdict v = check_gpu_counters_agree("TiledStep", "8192x8192", 1.31, how);
    EXPECT_FALSE(v.ran);
    EXPECT_TRUE(testing::Test::IsSkipped());
}

GpuProfile tiled_profile(double loads, double shared_loads = 5.0 * 8190.0 * 8190.0) {
    GpuProfile profile;
    profile.available = true;
    ProfiledLaunch l;
    l.suite = "TiledStep", l.instance = "8192x8192", l.call = "launch_step_tiled at 8192x8192";
    l.kernels.push_back(ProfiledKernel{"ftcs_tiled", {{ncu_metric::kGlobalLoadBytes, 4 * loads},
                                                     {ncu_metric::kSharedLoadBytes, 4 * shared_loads}}});
    profile.launches.push_back(l);
    return profile;
}

TEST(GpuProfile, ATiledKernelThatReadsGlobalMemoryOnTheGpuFails) {
    GpuCounterAgreement how;
    how.kernel = "your tiled kernel", how.outputs = 8190.0 * 8190.0;
    const GpuProfile cheat = tiled_profile(5.0 * how.outputs);
    EXPECT_NONFATAL_FAILURE(check_gpu_counters_agree(cheat, "TiledStep", "8192x8192", 1.31, how),
                            "your tiled kernel reads its input 5.0 times per cell on the GPU and 1.3 times in CPU "
                            "execution mode: it must do the same work in both");
}

TEST(GpuProfile, WithinTheToleranceTheyAgree) {
    GpuCounterAgreement how;
    how.outputs = 8190.0 * 8190.0;
    // The sample's edge blocks over-represented (CPU 1.40), float4 loads on the GPU (a quarter of the count).
    for (double gpu : {1.313, 0.33, 1.9}) {
        const GpuCounterVerdict v = check_gpu_counters_agree(tiled_profile(gpu * how.outputs), "TiledStep", "8192x8192", 1.40, how);
        EXPECT_TRUE(v.ran);
        EXPECT_TRUE(v.agree) << gpu;
    }
    EXPECT_FALSE(testing::Test::HasFailure());
}

// Shared memory, where CPU execution mode's figure is given: a GPU that skips the tile reads far less from it.
TEST(GpuProfile, ATileSkippedOnTheGpuFailsBySharedMemoryToo) {
    GpuCounterAgreement how;
    how.kernel = "your tiled kernel", how.outputs = 8190.0 * 8190.0;
    how.cpu_shared_elements_read_per_output = 5.0;
    const GpuProfile honest = tiled_profile(1.313 * how.outputs, 5.0024 * how.outputs);
    const GpuCounterVerdict v = check_gpu_counters_agree(honest, "TiledStep", "8192x8192", 1.312, how);
    EXPECT_TRUE(v.agree);
    EXPECT_NEAR(v.gpu_shared, 5.0024, 1e-9);
    EXPECT_FALSE(testing::Test::HasFailure());
    const GpuProfile skipped = tiled_profile(1.313 * how.outputs, 0.2 * how.outputs);
    EXPECT_NONFATAL_FAILURE(check_gpu_counters_agree(skipped, "TiledStep", "8192x8192", 1.312, how),
                            "your tiled kernel reads 0.2 values per cell from shared memory on the GPU and 5.0 in CPU "
                            "execution mode: it must do the same work in both");
}

}  // namespace
