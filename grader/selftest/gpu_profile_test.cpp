// The GPU profile's reading of ncu's CSV and its "not run" paths (gpulab/gpu_profile.h). No GPU needed: the CSV is
// in the shape ncu 2025.3.1 printed on an H200 with --csv --page raw --print-units base (thousands separators, a units row, quoted
// kernel names with commas), the failures in its words.
#include "gpulab/expert.h"
#include "gpulab/gpu_profile.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace {

using namespace gpulab;

// With --nvtx, each kernel's push/pop ranges in one column, as ncu 2025.3.1 printed them: the thread id, then one
// quoted "<domain>:<range>:..." entry per open range (CSV-quoted again, so its quotes are doubled).
std::string range_field(int launch) {
    return "\"4242  \"\"<default domain>:gpulab launch " + std::to_string(launch) +
           ":none:none:none:none:none:none\"\" \"";
}

const std::string kCsv =
    "==PROF== Connected to process 4242 (/b/labs/grade-02-heat-2d-gpu)\n"
    "==PROF== Profiling \"ftcs_naive\" - 0: 0%....50%....100% - 9 passes\n"
    "==PROF== Profiling \"ftcs_tiled\" - 1: 0%....50%....100% - 9 passes\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\","
    "\"thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\","
    "\"Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\",\"Kernel Name\",\"Context\","
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"launch__grid_size\","
    "\"smsp__sass_data_bytes_mem_global_op_ld.sum\",\"sm__warps_active.avg.pct_of_peak_sustained_active\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"inst\",\"%\"\n"
    "\"0\",\"4242\",\"grade-02-heat-2d-gpu\",\"h\"," + range_field(0) + ",\"\","
    "\"void heat::ftcs_naive<float>(const float *, float *, int, int, float)\",\"1\",\"7\",\"(32, 8, 1)\","
    "\"(256, 1024, 1)\",\"0\",\"9.0\",\"262,144\",\"1,342,177,280\",\"87.5\"\n"
    "\"1\",\"4242\",\"grade-02-heat-2d-gpu\",\"h\"," + range_field(1) + ",\"\",\"ftcs_tiled\",\"1\",\"7\","
    "\"(32, 8, 1)\",\"(256, 1024, 1)\",\"0\",\"9.0\",\"262,144\",\"352,321,536\",\"n/a\"\n"
    "==PROF== Disconnected from process 4242\n";

TEST(GpuProfile, ParsesNcuCsvInBaseUnits) {
    const std::vector<NcuRow> rows = parse_ncu_csv(kCsv);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].kernel, "void heat::ftcs_naive<float>(const float *, float *, int, int, float)");
    EXPECT_DOUBLE_EQ(rows[0].metrics.at(ncu_metric::kGlobalLoadBytes), 1342177280.0);
    EXPECT_DOUBLE_EQ(rows[0].metrics.at(ncu_metric::kAchievedOccupancy), 87.5);
    EXPECT_TRUE(std::isnan(rows[1].metrics.at(ncu_metric::kAchievedOccupancy)));  // "n/a"
    EXPECT_EQ(rows[0].text.at("Grid Size"), "(256, 1024, 1)");
    EXPECT_EQ(range_launch_index(rows[0]), 0);
    EXPECT_EQ(range_launch_index(rows[1]), 1);
}

TEST(GpuProfile, ALaunchNumberIsReadFromItsRangeWhole) {
    NcuRow row;
    const std::string column = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg";
    row.text[column] = "4242  \"<default domain>:gpulab launch 12:none:none:none:none:none:none\" ";
    EXPECT_EQ(range_launch_index(row), 12);
    // Nested ranges: a student's own range inside ours does not hide it.
    row.text[column] = "4242  \"<default domain>:gpulab launch 3:none:none:none:none:none:none\" "
                       "\"<default domain>:my kernels:none:none:none:none:none:none\" ";
    EXPECT_EQ(range_launch_index(row), 3);
    // A range that only starts like ours, or no range at all: in no launch.
    row.text[column] = "4242  \"<default domain>:gpulab launch 3b:none\" ";
    EXPECT_EQ(range_launch_index(row), -1);
    row.text[column] = "";
    EXPECT_EQ(range_launch_index(row), -1);
    EXPECT_EQ(range_launch_index(NcuRow{}), -1);
}

TEST(GpuProfile, AttributesKernelsToTheLaunchWhoseRangeHoldsThem) {
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
    // Launch numbers out of the names' range: still attributed, never dropped.
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

// Lab 07 leaves the patched shared-memory bytes out (3.3 s of its profile); the requests and conflicts stay, so bank
// conflicts per request are still measured. Every other lab counts them (labs 02 and 03 check them).
TEST(GpuProfile, ALabMayLeaveTheSharedBytesOutButNotTheirConflicts) {
    const std::vector<std::string> with = profile_metrics(true), without = profile_metrics(false);
    const auto has = [](const std::vector<std::string>& m, const char* name) {
        return std::find(m.begin(), m.end(), name) != m.end();
    };
    for (const char* bytes : {ncu_metric::kSharedLoadBytes, ncu_metric::kSharedStoreBytes}) {
        EXPECT_TRUE(has(with, bytes)) << bytes;
        EXPECT_FALSE(has(without, bytes)) << bytes;
    }
    for (const char* kept : {ncu_metric::kSharedLoadRequests, ncu_metric::kSharedLoadConflicts,
                             ncu_metric::kSharedStoreRequests, ncu_metric::kGlobalLoadBytes})
        EXPECT_TRUE(has(without, kept)) << kept;
    // The requests are the hardware's counts, not another patched metric.
    EXPECT_EQ(std::string(ncu_metric::kSharedLoadRequests).find("sass"), std::string::npos);
    EXPECT_EQ(std::string(ncu_metric::kSharedStoreRequests).find("sass"), std::string::npos);

    std::string why;
    EXPECT_TRUE(shared_bytes_counted(Json::parse(R"({"gpu_profile": {"suites": ["Tiled"]}})"), &why));
    EXPECT_TRUE(shared_bytes_counted(Json::object(), &why));
    EXPECT_EQ(why, "");
    EXPECT_FALSE(shared_bytes_counted(Json::parse(R"({"gpu_profile": {"shared_bytes": false}})"), &why));
    EXPECT_NE(why.find("\"shared_bytes\": false"), std::string::npos) << why;
    EXPECT_NE(why.find("Report.AccessAnalysis"), std::string::npos) << why;
    const std::string lab07 = std::string(GPULAB_SOURCE_DIR) + "/labs/07-matmul/lab.json";
    if (std::filesystem::exists(lab07))  // a student release may leave the lab out
        EXPECT_FALSE(shared_bytes_counted(load_json_file(lab07), nullptr)) << "lab 07 counts no shared bytes on the GPU";
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

// ---- The expert's launches (issue 35, item 1) ----------------------------------------------------------------

// Lab 02's child, with the expert: its launch lines in index order (yours, the reference's, the expert's), and the
// CSV ncu wrote for them (each kernel inside its launch's range).
const char* const kChildWithExpert =
    "[gpulab-profile] launch 0\tyours\tTiledStep\t8192x8192\tlaunch_step_tiled at 8192x8192\n"
    "[gpulab-profile] launch 1\treference\tTiledStep\t8192x8192\tlaunch_step_tiled at 8192x8192\n"
    "[gpulab-profile] launch 2\texpert\tTiledStep\t8192x8192\texpert::launch_step at 8192x8192\n"
    "[gpulab-profile] workload finished\n";

std::string kernel_row(int id, int launch, const std::string& name, const std::string& loads) {
    return "\"" + std::to_string(id) + "\"," + range_field(launch) + ",\"" + name + "\",\"262,144\",\"" + loads + "\"\n";
}

const std::string kCsvWithExpert =
    "\"ID\",\"thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\",\"Kernel Name\","
    "\"launch__grid_size\",\"smsp__sass_data_bytes_mem_global_op_ld.sum\"\n" +
    kernel_row(0, 0, "ftcs_tiled", "352,321,536") + kernel_row(1, 1, "ftcs_tiled_reference", "344,064,000") +
    kernel_row(2, 2, "void expert::heat2d_step_kernel<32, 8>(const float *, float *, int, int, float)", "268,435,456");

TEST(GpuProfile, ExpertRowsAreAttributedAfterTheReferences) {
    std::string expert_why = "unchanged";
    const std::vector<ProfiledLaunch> names = launches_of_child_log(kChildWithExpert, &expert_why);
    ASSERT_EQ(names.size(), 3u);
    EXPECT_EQ(names[2].role, "expert");
    EXPECT_EQ(names[2].call, "expert::launch_step at 8192x8192");
    EXPECT_EQ(expert_why, "unchanged");  // the child did not say it ran none
    GpuProfile profile;
    profile.available = true;
    profile.launches = attribute_rows(parse_ncu_csv(kCsvWithExpert), names);
    ASSERT_EQ(profile.launches.size(), 3u);
    const ProfiledLaunch* expert = profile.find("TiledStep", "8192x8192", "expert");
    ASSERT_NE(expert, nullptr);
    EXPECT_EQ(expert, &profile.launches[2]);
    ASSERT_EQ(expert->kernels.size(), 1u);
    EXPECT_EQ(expert->kernels[0].name, "void expert::heat2d_step_kernel<32, 8>(const float *, float *, int, int, float)");
    EXPECT_DOUBLE_EQ(expert->total(ncu_metric::kGlobalLoadBytes), 268435456.0);
    // The student's and the reference's rows keep their own kernels.
    EXPECT_EQ(profile.find("TiledStep", "8192x8192", "yours")->kernels[0].name, "ftcs_tiled");
    EXPECT_EQ(profile.find("TiledStep", "8192x8192", "reference")->kernels[0].name, "ftcs_tiled_reference");
}

// The comparison cache keeps a full run's output; a later run takes the reference's and the expert's launches from it,
// never the student's of that earlier run.
TEST(GpuProfile, TheComparisonCacheGivesTheReferenceAndTheExpertOnly) {
    std::string expert_why = "unchanged";
    const std::vector<ProfiledLaunch> kept = comparison_launches(kCsvWithExpert, kChildWithExpert, &expert_why);
    ASSERT_EQ(kept.size(), 2u);
    EXPECT_EQ(kept[0].role, "reference");
    EXPECT_EQ(kept[0].kernels.at(0).name, "ftcs_tiled_reference");
    EXPECT_EQ(kept[1].role, "expert");
    EXPECT_DOUBLE_EQ(kept[1].total(ncu_metric::kGlobalLoadBytes), 268435456.0);
    EXPECT_EQ(expert_why, "unchanged");
    // A kept run whose expert did not load says why, as the run itself did.
    const std::vector<ProfiledLaunch> without = comparison_launches(
        kCsvWithExpert,
        "[gpulab-profile] launch 0\tyours\tTiledStep\t8192x8192\tlaunch_step_tiled at 8192x8192\n"
        "[gpulab-profile] launch 1\treference\tTiledStep\t8192x8192\tlaunch_step_tiled at 8192x8192\n"
        "[gpulab-profile] the expert was not profiled: its library did not load (x)\n",
        &expert_why);
    ASSERT_EQ(without.size(), 1u);
    EXPECT_EQ(without[0].role, "reference");
    EXPECT_EQ(expert_why, "its library did not load (x)");
}

// A failed expert launch is recorded as failed, like any other, and the student's launch keeps its kernels.
TEST(GpuProfile, AFailedExpertLaunchIsRecordedAndTheStudentsStands) {
    const std::string child = std::string(kChildWithExpert) +
                              "[gpulab-profile] failed 2\tCUDA error: an illegal memory access was encountered\n";
    const std::vector<ProfiledLaunch> names = launches_of_child_log(child, nullptr);
    ASSERT_EQ(names.size(), 3u);
    EXPECT_EQ(names[2].error, "CUDA error: an illegal memory access was encountered");
    EXPECT_EQ(names[0].error, "");
    const std::vector<ProfiledLaunch> launches = attribute_rows(parse_ncu_csv(kCsvWithExpert), names);
    EXPECT_EQ(launches[0].kernels.size(), 1u);
    EXPECT_EQ(launches[0].error, "");
}

TEST(GpuProfile, TheChildSaysWhyItRanNoExpert) {
    std::string why;
    const std::vector<ProfiledLaunch> names = launches_of_child_log(
        "[gpulab-profile] launch 0\tyours\tStep\tM67108864\tlaunch_step at M = 67108864\n"
        "[gpulab-profile] the expert was not profiled: its library did not load (cannot load the solution library: "
        "libexpert.so: cannot open shared object file)\n",
        &why);
    EXPECT_EQ(names.size(), 1u);
    EXPECT_EQ(why, "its library did not load (cannot load the solution library: libexpert.so: cannot open shared "
                   "object file)");
}

// The expert runs on the buffers of the student's timed launch it is registered beside, with the expert's table.
TEST(GpuProfile, AnExpertRunTakesItsTimedLaunchsBuffers) {
    const std::vector<GeometryCheck> timed = {
        {"NaiveStep", "MatchesOracle", "8192x8192", "launch_step_naive at 8192x8192", {4, 8}, {}},
        {"TiledStep", "MatchesOracle", "8192x8192", "launch_step_tiled at 8192x8192", {268435456, 268435456}, {}}};
    const int table = 7;  // stands for the expert library's table
    const void* seen_api = nullptr;
    std::size_t seen_buffers = 0;
    std::vector<ExpertLaunch> experts;
    experts.push_back(expert_launch<int>("TiledStep", "8192x8192", "expert::launch_step at 8192x8192",
                                         [&](const int& api, const std::vector<void*>& b) {
                                             seen_api = &api;
                                             seen_buffers = b.size();
                                         }));
    experts.push_back(expert_launch<int>("TiledStep", "4096x4096", "expert::launch_step at 4096x4096",
                                         [](const int&, const std::vector<void*>&) {}));
    const std::vector<GeometryCheck> runs = expert_runs(experts, timed, &table);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].suite, "TiledStep");
    EXPECT_EQ(runs[0].instance, "8192x8192");
    EXPECT_EQ(runs[0].call, "expert::launch_step at 8192x8192");
    EXPECT_EQ(runs[0].buffer_bytes, (std::vector<std::size_t>{268435456, 268435456}));
    int a = 0, b = 0;
    runs[0].launch({&a, &b});
    EXPECT_EQ(seen_api, &table);
    EXPECT_EQ(seen_buffers, 2u);
    // Beside a timed launch nobody registered: a grader error, recorded as that launch's failure when it runs.
    EXPECT_TRUE(runs[1].buffer_bytes.empty());
    try {
        runs[1].launch({});
        ADD_FAILURE() << "an expert launch beside no timed launch ran";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("TiledStep 4096x4096, which is not registered"), std::string::npos)
            << e.what();
    }
}

TEST(GpuProfile, ExpertLaunchesAreRegisteredOnceAndABrokenMakerIsLeftOut) {
    add_expert_launches([] {
        return std::vector<ExpertLaunch>{{"Step", "M67108864", "expert::launch_rod_step at M = 67108864", {}}};
    });
    add_expert_launches([]() -> std::vector<ExpertLaunch> { throw std::runtime_error("lab.json has no speed.M"); });
    const std::vector<ExpertLaunch> first = expert_launches();
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].call, "expert::launch_rod_step at M = 67108864");
    EXPECT_EQ(expert_launches().size(), 1u);  // the makers ran once
}

// In CPU execution mode the expert's GPU library comes from the build's lab manifest.
TEST(GpuProfile, TheExpertLibraryComesFromTheManifestWhereItIsBuilt) {
    std::string why;
    EXPECT_EQ(expert_library_from_manifest(Json::parse(R"({"lab": "01-heat-rod", "expert": {}})"), &why), "");
    EXPECT_EQ(why, kNoExpertInThisBuild);
    why.clear();
    EXPECT_EQ(expert_library_from_manifest(Json::parse(R"({"lab": "01-heat-rod"})"), &why), "");
    EXPECT_EQ(why, kNoExpertInThisBuild);
    why.clear();
    EXPECT_EQ(expert_library_from_manifest(
                  Json::parse(R"({"expert": {"gpu": {"target": "expert-01-heat-rod", "library": "/nonexistent/libexpert.so"}}})"),
                  &why),
              "");
    EXPECT_EQ(why, "the expert's GPU library is not built (/nonexistent/libexpert.so)");
    const std::string built = (std::filesystem::temp_directory_path() / "gpulab-selftest-libexpert.so").string();
    std::ofstream(built) << "not a library: only its existence is read here";
    why.clear();
    EXPECT_EQ(expert_library_from_manifest(Json{{"expert", {{"gpu", {{"library", built}}}}}}, &why), built);
    EXPECT_EQ(why, "");
    std::filesystem::remove(built);
}

}  // namespace
