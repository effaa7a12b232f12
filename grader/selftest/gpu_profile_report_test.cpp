// The GPU profile's figures and the speed diagnosis computed from them (gpulab/gpu_profile_report.h), on profiles
// built by hand in the shape the drawn samples hold (sample_counters.h: base units, bytes, ns, %). No GPU needed.
#include "gpulab/expert.h"
#include "gpulab/gpu_profile.h"
#include "gpulab/gpu_profile_report.h"
#include "gpulab/lab_config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace {

using namespace gpulab;

// One rod step of 2^26 floats, one cell per thread: 3 float loads and 1 store per cell, coalesced.
ProfiledKernel rod_step(double block, double achieved) {
    const double cells = 67108864, requests = cells / 32;
    ProfiledKernel k;
    k.name = "heat_step";
    k.metrics = {{ncu_metric::kDuration, 320000},
                 {ncu_metric::kBlockSize, block},
                 {ncu_metric::kGridSize, cells / block},
                 {ncu_metric::kRegisters, 16},
                 {ncu_metric::kAchievedOccupancy, achieved},
                 {ncu_metric::kGlobalLoadBytes, 12 * cells},
                 {ncu_metric::kGlobalLoadRequests, 3 * requests},
                 {ncu_metric::kGlobalLoadSectors, 3 * requests * 4.1},
                 {ncu_metric::kGlobalStoreBytes, 4 * cells},
                 {ncu_metric::kGlobalStoreRequests, requests},
                 {ncu_metric::kGlobalStoreSectors, requests * 4},
                 {ncu_metric::kDramRead, 4 * cells},
                 {ncu_metric::kDramWrite, 4 * cells},
                 {ncu_metric::kBranchUniform, 100}};
    return k;
}

GpuProfile profile_of(const ProfiledKernel& yours, const ProfiledKernel& theirs) {
    GpuProfile p;
    p.available = true;
    ProfiledLaunch a;
    a.suite = "Step", a.instance = "M67108864", a.call = "launch_step at M = 67108864";
    a.kernels = {yours};
    ProfiledLaunch b = a;
    b.role = "reference", b.kernels = {theirs};
    p.launches = {a, b};
    return p;
}

TEST(GpuProfileReport, FiguresComeFromTheCounters) {
    const GpuKernelFigures f = figures_of(profile_of(rod_step(256, 86), rod_step(256, 86)), "Step", "M67108864", "yours");
    ASSERT_TRUE(f.available) << f.why;
    EXPECT_EQ(f.threads_per_block, 256u);
    EXPECT_NEAR(f.achieved_occupancy, 0.86, 1e-9);
    EXPECT_EQ(f.limiter, "threads");  // 8 blocks of 256 fill the SM's 2048 threads before any other limit
    EXPECT_NEAR(f.load_sectors_per_request, 4.1, 1e-9);
    EXPECT_NEAR(f.global_bytes_read_per_output_byte, 3.0, 1e-9);
    EXPECT_NEAR(f.dram_bytes_per_output_byte, 2.0, 1e-9);
    EXPECT_TRUE(f.diagnoses.empty()) << f.diagnoses.front().text;
}

TEST(GpuProfileReport, BlocksThatEndBeforeTheyStartAreNamedWithTheReferencesFigure) {
    // The H200's 128-thread rod kernel: 26% achieved of the 100% its blocks allow (shared/calibration).
    const GpuProfile p = profile_of(rod_step(128, 26), rod_step(256, 86));
    const GpuKernelFigures f = figures_of(p, "Step", "M67108864", "yours");
    ASSERT_FALSE(f.diagnoses.empty());
    EXPECT_EQ(f.diagnoses.front().cause, "blocks-end-before-they-start");
    const std::string why = speed_diagnosis(p, "Step", "M67108864", {});
    EXPECT_NE(why.find("achieved occupancy 26% of the 100% your 128-thread blocks allow"), std::string::npos) << why;
    EXPECT_NE(why.find("the reference's kernel: achieved occupancy 86% with 256-thread blocks"), std::string::npos) << why;
    EXPECT_NE(why.find("[blocks-end-before-they-start]"), std::string::npos) << why;
    // How much of the gap it can explain: 86% of the warps busy against 26%.
    EXPECT_NE(why.find("alone it can make your kernel up to 3.31x slower than the reference's"), std::string::npos)
        << why;
}

// Where no reference sample was drawn at this size (its speed test timed another), the diagnosis compares with the
// suite's reference row at another size, and says at which.
TEST(GpuProfileReport, AtAnotherSizeTheDiagnosisQuotesTheSuitesReferenceRowAndItsSize) {
    GpuProfile p = profile_of(rod_step(128, 26), rod_step(256, 86));
    ProfiledLaunch other = p.launches[0];  // the student's kernel at a second timed size, no reference row there
    other.instance = "M1000000";
    p.launches.push_back(other);
    const std::string why = speed_diagnosis(p, "Step", "M1000000", {});
    EXPECT_NE(why.find("the reference's kernel at M67108864: achieved occupancy 86% with 256-thread blocks"),
              std::string::npos)
        << why;
    const std::string same = speed_diagnosis(p, "Step", "M67108864", {});
    EXPECT_EQ(same.find("kernel at M"), std::string::npos) << same;
}

TEST(GpuProfileReport, UncoalescedLoadsAreNamed) {
    ProfiledKernel k = rod_step(256, 86);
    k.metrics[ncu_metric::kGlobalLoadSectors] = k.metrics[ncu_metric::kGlobalLoadRequests] * 32;  // a sector per lane
    const GpuKernelFigures f = figures_of(profile_of(k, rod_step(256, 86)), "Step", "M67108864", "yours");
    ASSERT_FALSE(f.diagnoses.empty());
    EXPECT_EQ(f.diagnoses.front().cause, "uncoalesced-loads");
    // 32 sectors per request against the reference's 4.1: 7.80 times the sectors for each byte used.
    const std::string why = speed_diagnosis(profile_of(k, rod_step(256, 86)), "Step", "M67108864", {});
    EXPECT_NE(why.find("up to 7.80x slower than the reference's (sectors fetched per byte used"), std::string::npos)
        << why;
    // Beside itself a kernel has no gap to explain.
    const std::string same = speed_diagnosis(profile_of(k, k), "Step", "M67108864", {});
    EXPECT_EQ(same.find("alone it can make"), std::string::npos) << same;
}

TEST(GpuProfileReport, WithoutCountersTheMessageSaysWhyAndKeepsTheLaunchFacts) {
    GpuProfile p;
    p.why = "this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM)";
    RecordedLaunch l;
    l.grid = dim3(524288), l.block = dim3(128);
    const std::string why = speed_diagnosis(p, "Step", "M67108864", {l});
    EXPECT_NE(why.find("were not read: this user may not read the GPU's performance counters"), std::string::npos) << why;
    EXPECT_NE(why.find("block 128x1x1"), std::string::npos) << why;
}

// A launch of more kernels than the profiler reads (issue 45, item 4): its counters are not read, but what its launches
// show is still said: launch-overhead, at the launch's line with its configuration, in the row and in the speed test.
TEST(GpuProfileReport, ALaunchOfTooManyKernelsIsNamedLaunchOverheadAtItsLine) {
    GpuProfile p;
    p.available = true;
    ProfiledLaunch l;
    l.suite = "NaiveStencil", l.instance = "449x449x449_float", l.call = "launch_stencil_naive(float, 449 x 449 x 449)";
    l.sample = 3, l.samples = 21;
    l.error = "the launch runs 447 kernels, more than the grader profiles in one launch (16)";
    l.launch_at_fault = true;
    l.kernels_launched = 447;
    l.first_launch_line = "stencil3d_tiling.cu:68  stencil_naive<<<grid, block>>>(d_in, d_out, nx, ny, nz, c, z);";
    l.first_configuration = "grid 14x28x1, block 32x16x1, 0 B shared, 21 regs";
    p.launches = {l};
    const GpuKernelFigures f = figures_of(p, l.suite, l.instance, "yours");
    EXPECT_FALSE(f.available);
    ASSERT_EQ(f.diagnoses.size(), 1u);
    EXPECT_EQ(f.diagnoses[0].cause, "launch-overhead");
    ASSERT_EQ(f.diagnoses[0].lines.size(), 1u);
    EXPECT_EQ(f.diagnoses[0].lines[0].quoted, l.first_launch_line);
    RecordedLaunch plane;
    plane.grid = dim3(14, 28, 1), plane.block = dim3(32, 16, 1);
    const std::string why = speed_diagnosis(p, l.suite, l.instance, std::vector<RecordedLaunch>(447, plane));
    EXPECT_NE(why.find("launch-overhead at stencil3d_tiling.cu:68"), std::string::npos) << why;
    EXPECT_NE(why.find("and 444 more"), std::string::npos) << why;
    EXPECT_NE(why.find("447 kernels"), std::string::npos) << why;
    // A profiled launch of a few kernels is not named so.
    l.error.clear(), l.launch_at_fault = false, l.kernels_launched = 1;
    l.kernels = {rod_step(256, 86)};
    p.launches = {l};
    EXPECT_TRUE(figures_of(p, l.suite, l.instance, "yours").diagnoses.empty());
}

// Barrier stalls from the GPU's counters, put down to the __syncthreads() lines the counted sample's warps executed
// (most executed first; a line under 10% of the executions is left out).
TEST(GpuProfileReport, BarrierStallsNameTheBarrierLines) {
    ProfiledKernel k = rod_step(256, 86);
    k.metrics[ncu_metric::kBarrierStalledWarps] = 8.2e6;
    k.metrics[ncu_metric::kActiveWarps] = 1e7;
    GpuProfile p = profile_of(k, rod_step(256, 86));
    p.launches[0].barrier_lines = {{"tiled.cu:60  __syncthreads();", 9000}, {"tiled.cu:71  __syncthreads();", 500},
                                   {"tiled.cu:52  __syncthreads();", 2000}};
    const GpuKernelFigures f = figures_of(p, "Step", "M67108864", "yours");
    ASSERT_TRUE(f.available) << f.why;
    EXPECT_NEAR(f.barrier_stall_share, 0.82, 1e-9);
    ASSERT_EQ(f.diagnoses.size(), 1u);
    EXPECT_EQ(f.diagnoses[0].cause, "barrier-stalls");
    ASSERT_EQ(f.diagnoses[0].lines.size(), 2u);
    EXPECT_EQ(f.diagnoses[0].lines[0].quoted, "tiled.cu:60  __syncthreads();");
    EXPECT_NE(f.diagnoses[0].lines[0].figure.find("78%"), std::string::npos) << f.diagnoses[0].lines[0].figure;
    EXPECT_EQ(f.diagnoses[0].lines[1].quoted, "tiled.cu:52  __syncthreads();");
    // Beside the reference's own share of barrier waits, not its occupancy.
    ProfiledKernel theirs = rod_step(256, 86);
    theirs.metrics[ncu_metric::kBarrierStalledWarps] = 2.5e6;
    theirs.metrics[ncu_metric::kActiveWarps] = 1e7;
    p.launches[1].kernels = {theirs};
    const std::string why = speed_diagnosis(p, "Step", "M67108864", {});
    EXPECT_NE(why.find("(the reference's kernel: 25% of its warps' cycles waiting at a barrier) [barrier-stalls]"),
              std::string::npos)
        << why;
    EXPECT_TRUE(figures_of(profile_of(rod_step(256, 86), rod_step(256, 86)), "Step", "M67108864", "yours").diagnoses.empty());
}

// A memory instruction as the GPU counts it (instruction_counters.cpp): its warp requests and the lanes that ran.
InstructionCount memory_instruction(bool shared, unsigned long long requests, unsigned long long lanes) {
    InstructionCount i;
    if (shared) i.shared_load_requests = requests;
    else i.load_requests = requests, i.load_lanes = lanes, i.load_sectors = requests * 4;
    i.idle_requests = 32 * requests - lanes;
    return i;
}

// Divergence on a GPU (issue 45): branch uniformity cannot name it (an H200 read 54-60% for labs 05 and 06's
// references, 83-86% for their parity-split variants), so few working lanes per warp instruction have the drawn
// sample's memory instructions counted, and their lanes decide, as CPU execution mode's requests do.
TEST(GpuProfileReport, DivergenceIsNamedFromTheMemoryInstructionsLanesAtTheirLine) {
    ProfiledKernel k = rod_step(256, 86);
    k.metrics[ncu_metric::kWarpInstructions] = 1e6;
    k.metrics[ncu_metric::kWorkingLaneInstructions] = 30e6;  // 30 working lanes an instruction: nothing to count
    GpuProfile p = profile_of(k, rod_step(256, 86));
    EXPECT_FALSE(instructions_worth_counting(figures_of(p, "Step", "M67108864", "yours")));
    p.launches[0].kernels[0].metrics[ncu_metric::kWorkingLaneInstructions] = 19e6;
    EXPECT_TRUE(instructions_worth_counting(figures_of(p, "Step", "M67108864", "yours")));
    EXPECT_FALSE(instructions_worth_counting(figures_of(profile_of(rod_step(256, 86), rod_step(256, 86)), "Step",
                                                        "M67108864", "yours")))
        << "a profile without the lane counts asks for no count";

    // Even and odd lanes on two paths: every request of the step runs 16 lanes, beside a full-warp load.
    p.launches[0].instructions = {memory_instruction(false, 1000, 32000), memory_instruction(true, 4000, 64000),
                                  memory_instruction(true, 4000, 64000)};
    p.launches[0].instruction_lines = {"rod.cu:20  const float centre = in[i];", "rod.cu:27  v += tile[tx + 1];",
                                       "rod.cu:31  v += tile[tx - 1];"};
    GpuKernelFigures f = figures_of(p, "Step", "M67108864", "yours");
    ASSERT_EQ(f.diagnoses.size(), 1u);
    EXPECT_EQ(f.diagnoses[0].cause, "divergent-warps");
    EXPECT_NEAR(f.active_lanes_per_request, (32000 + 128000) / 9000.0, 1e-9);
    EXPECT_NE(f.diagnoses[0].text.find("89% of your warps' memory requests"), std::string::npos) << f.diagnoses[0].text;
    ASSERT_EQ(f.diagnoses[0].lines.size(), 2u);
    EXPECT_EQ(f.diagnoses[0].lines[0].quoted.rfind("rod.cu:2", 0), 0u) << f.diagnoses[0].lines[0].quoted;
    EXPECT_NE(f.diagnoses[0].lines[0].figure.find("50% of its requests' lanes idle"), std::string::npos)
        << f.diagnoses[0].lines[0].figure;
    // The speed test's sentence: the cause at its lines, and no reference figure (its lanes were not counted), least
    // of all its occupancy, which says nothing of divergence.
    const std::string why = speed_diagnosis(p, "Step", "M67108864", {});
    EXPECT_NE(why.find("[divergent-warps], at rod.cu:2"), std::string::npos) << why;
    EXPECT_EQ(why.find("the reference's kernel"), std::string::npos) << why;

    // Halo threads waiting while the inner ones compute (lab 04's reference: about 20 lanes a request): not named.
    p.launches[0].instructions = {memory_instruction(false, 1000, 32000), memory_instruction(true, 4000, 72000)};
    p.launches[0].instruction_lines.resize(2);
    f = figures_of(p, "Step", "M67108864", "yours");
    EXPECT_NEAR(f.active_lanes_per_request, 20.8, 1e-9);
    EXPECT_TRUE(f.diagnoses.empty()) << f.diagnoses.front().text;

    // 48-thread blocks: a warp of 32 lanes and one of 16, 24 a request on average, every lane at work: not divergence.
    p.launches[0].kernels[0].metrics[ncu_metric::kBlockSize] = 48;
    p.launches[0].instructions = {memory_instruction(false, 2000, 48000)};
    p.launches[0].instruction_lines.resize(1);
    f = figures_of(p, "Step", "M67108864", "yours");
    EXPECT_NEAR(f.active_lanes_per_request, 32, 1e-9);
    for (const Diagnosis& d : f.diagnoses) EXPECT_NE(d.cause, "divergent-warps") << d.text;
}

TEST(GpuProfileReport, TheTableShowsBothRoles) {
    const GpuProfile p = profile_of(rod_step(128, 26), rod_step(256, 86));
    const std::string table = gpu_profile_table({figures_of(p, "Step", "M67108864", "yours"),
                                                 figures_of(p, "Step", "M67108864", "reference")}, "NVIDIA H200");
    EXPECT_NE(table.find("NVIDIA H200"), std::string::npos);
    EXPECT_NE(table.find("26%/100%"), std::string::npos) << table;
    EXPECT_NE(table.find("86%/100%"), std::string::npos) << table;
    EXPECT_NE(table.find("reference"), std::string::npos) << table;
}

// A lab that leaves the GPU's shared bytes out (lab 07) shows "-" there and says why under the table; a row with its
// count shows the figure and no such line.
TEST(GpuProfileReport, SharedBytesNotCountedShowADashAndWhy) {
    ProfiledKernel counted = rod_step(256, 86);
    counted.metrics[ncu_metric::kSharedLoadBytes] = 8.0 * 67108864;  // 2 shared bytes per output byte
    const GpuProfile p = profile_of(rod_step(128, 26), counted);
    const std::vector<GpuKernelFigures> rows = {figures_of(p, "Step", "M67108864", "yours"),
                                                figures_of(p, "Step", "M67108864", "reference")};
    ASSERT_TRUE(rows[0].available && rows[1].available);
    EXPECT_TRUE(std::isnan(rows[0].shared_bytes_read_per_output_byte));
    EXPECT_DOUBLE_EQ(rows[1].shared_bytes_read_per_output_byte, 2.0);
    const std::string table = gpu_profile_table(rows, "NVIDIA H200");
    EXPECT_EQ(table.find("nan"), std::string::npos) << table;
    EXPECT_NE(table.find("  shm B/B \"-\": "), std::string::npos) << table;
    EXPECT_EQ(gpu_profile_table({rows[1]}, "NVIDIA H200").find("shm B/B \"-\""), std::string::npos);
    const Json doc = Json::parse(gpu_profile_json(rows, "NVIDIA H200", ""));
    EXPECT_TRUE(doc.at("rows").at(0).at("shared_bytes_read_per_output_byte").is_null());
    EXPECT_DOUBLE_EQ(doc.at("rows").at(1).at("shared_bytes_read_per_output_byte").get<double>(), 2.0);
}

// The expert's kernel beside the student's and the reference's (issue 35, item 1): a row of its own, by role.
GpuProfile profile_with_expert(const ProfiledKernel& yours, const ProfiledKernel& theirs, const ProfiledKernel& expert) {
    GpuProfile p = profile_of(yours, theirs);
    ProfiledLaunch e = p.launches.front();
    e.role = "expert", e.call = "expert::launch_rod_step at M = 67108864", e.kernels = {expert};
    p.launches.push_back(e);
    return p;
}

std::vector<GpuKernelFigures> three_roles(const GpuProfile& p) {
    std::vector<GpuKernelFigures> rows;
    for (const char* role : {"yours", "reference", "expert"}) rows.push_back(figures_of(p, "Step", "M67108864", role));
    return rows;
}

TEST(GpuProfileReport, TheTableShowsTheExpertBesideTheOthers) {
    const GpuProfile p = profile_with_expert(rod_step(128, 26), rod_step(256, 86), rod_step(512, 93));
    const std::vector<GpuKernelFigures> rows = three_roles(p);
    ASSERT_TRUE(rows[2].available) << rows[2].why;
    EXPECT_EQ(rows[2].threads_per_block, 512u);
    const std::string table = gpu_profile_table(rows, "NVIDIA H200");
    const std::size_t expert_row = table.find("expert::launch_rod_step at M = 67108864");
    ASSERT_NE(expert_row, std::string::npos) << table;
    const std::string line = table.substr(expert_row, table.find('\n', expert_row) - expert_row);
    EXPECT_NE(line.find(" expert "), std::string::npos) << line;
    EXPECT_NE(line.find("93%/100%"), std::string::npos) << line;
    EXPECT_EQ(table.find("expert: not profiled"), std::string::npos) << table;
}

TEST(GpuProfileReport, WithoutAnExpertTheTableSaysWhyInOneLine) {
    const GpuProfile p = profile_of(rod_step(128, 26), rod_step(256, 86));
    std::vector<GpuKernelFigures> rows = {figures_of(p, "Step", "M67108864", "yours"),
                                          figures_of(p, "Step", "M67108864", "reference")};
    const std::string table = gpu_profile_table(rows, "NVIDIA H200", kNoExpertInThisBuild);
    const std::string line = std::string("  expert: not profiled: ") + kNoExpertInThisBuild + "\n";
    const std::size_t at = table.find(line);
    ASSERT_NE(at, std::string::npos) << table;
    EXPECT_EQ(table.find("expert: not profiled", at + line.size()), std::string::npos) << table;  // one line, not one per launch
    EXPECT_EQ(table.find("not profiled", 0), at + 10) << table;  // and no other row says "not profiled"
}

TEST(GpuProfileReport, TheJsonHasTheExpertRowAndWhyWhereThereIsNone) {
    const GpuProfile p = profile_with_expert(rod_step(128, 26), rod_step(256, 86), rod_step(512, 93));
    const Json with = Json::parse(gpu_profile_json(three_roles(p), "NVIDIA H200", ""));
    ASSERT_EQ(with.at("rows").size(), 3u);
    const Json& expert = with.at("rows")[2];
    EXPECT_EQ(expert.at("role"), "expert");
    EXPECT_EQ(expert.at("suite"), "Step");
    EXPECT_EQ(expert.at("call"), "expert::launch_rod_step at M = 67108864");
    EXPECT_TRUE(expert.at("available").get<bool>());
    EXPECT_NEAR(expert.at("achieved_occupancy").get<double>(), 0.93, 1e-9);
    EXPECT_EQ(with.at("expert_why"), "");
    const Json without = Json::parse(gpu_profile_json(three_roles(profile_of(rod_step(128, 26), rod_step(256, 86))),
                                                      "NVIDIA H200", kNoExpertInThisBuild));
    EXPECT_EQ(without.at("expert_why"), kNoExpertInThisBuild);
}

// The report's rows: per timed launch yours, the reference's, the expert's, in that order; the expert only where the
// profile ran it beside that launch.
TEST(GpuProfileReport, RowsPutTheExpertAfterTheReferenceWhereItRan) {
    const GpuProfile p = profile_with_expert(rod_step(128, 26), rod_step(256, 86), rod_step(512, 93));
    const std::vector<GeometryCheck> timed = {
        {"Step", "MatchesOracle", "M67108864", "launch_step at M = 67108864", {268435456, 268435456}, {}},
        {"Step", "MatchesOracle", "M1024", "launch_step at M = 1024", {4096, 4096}, {}}};
    const std::vector<GpuKernelFigures> rows = gpu_profile_rows(p, timed);
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0].role, "yours");
    EXPECT_EQ(rows[1].role, "reference");
    EXPECT_EQ(rows[2].role, "expert");
    EXPECT_EQ(rows[2].call, "expert::launch_rod_step at M = 67108864");
    EXPECT_TRUE(rows[2].available) << rows[2].why;
    // The second size has no profiled launch: the student's row says so; no reference or expert row is made up.
    EXPECT_EQ(rows[3].role, "yours");
    EXPECT_EQ(rows[3].instance, "M1024");
    EXPECT_FALSE(rows[3].available);
    const std::vector<GpuKernelFigures> two = gpu_profile_rows(profile_of(rod_step(128, 26), rod_step(256, 86)), timed);
    EXPECT_EQ(std::count_if(two.begin(), two.end(), [](const GpuKernelFigures& f) { return f.role == "expert"; }), 0);
}

}  // namespace

// The CPU/GPU agreement rule (counter_agreement.h): the CPU estimate's noise agrees, a model fault does not.
TEST(CounterAgreement, AgreesWithinTheEstimatesNoiseNotAcrossADifferenceInKind) {
    auto conflicts = [](double per_load, double per_store) { return CounterFigures{0.5, 0.5, per_load, per_store}; };
    EXPECT_TRUE(counters_agree(conflicts(1.96, 0), conflicts(2.03, 0)));    // lab 04's double tile
    EXPECT_FALSE(counters_agree(conflicts(0.88, 0), conflicts(2.03, 0)));   // the corners-only count it caught
    EXPECT_TRUE(counters_agree(conflicts(29, 30), conflicts(29.49, 30.51)));  // a column of doubles, LDS.64
    EXPECT_FALSE(counters_agree(conflicts(0, 31), conflicts(29.49, 31.10)));  // loads never counted
    EXPECT_FALSE(counters_agree(conflicts(11.3, 31), conflicts(29.02, 31.33)));  // requests cut at a budget
    EXPECT_TRUE(counters_agree(CounterFigures{0.55, 0.42, 0, 0}, CounterFigures{0.57, 0.43, 0, 0}));
    EXPECT_FALSE(counters_agree(CounterFigures{0.68, 0.42, 0, 0}, CounterFigures{0.57, 0.43, 0, 0}));
    EXPECT_TRUE(counters_agree(CounterFigures{std::nan(""), 0.42, 0, 0}, CounterFigures{0.57, 0.43, 0, 0}));
}
