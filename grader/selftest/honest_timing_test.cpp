// What holds a timed launch to the work itself (gpulab/timed_work.h), checked without a GPU: the fresh
// inputs the device writes and the host recomputes, the sampled output check, the audit of a timed launch,
// the physical floor and the launch deadline.
#include "gpulab/fresh_inputs.h"
#include "gpulab/launch_deadline.h"
#include "gpulab/speed_report.h"
#include "gpulab/spot_check.h"
#include "gpulab/timed_work.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

namespace {

using gpulab::FreshDraw;
using gpulab::RecordedCall;
using gpulab::RecordedLaunch;

TEST(FreshInputs, TheHostKnowsEveryValueTheDeviceWritesExactly) {
    const FreshDraw draw{42, 0.5f, 1.0f / (1 << 19)};
    std::vector<float> f(10000);
    std::vector<double> d(10000);
    gpulab::fill_fresh(f.data(), f.size(), draw);  // CPU execution mode's fill: the same formula as the GPU's
    gpulab::fill_fresh(d.data(), d.size(), draw);
    for (std::size_t i = 0; i < f.size(); ++i) {
        const double v = draw.at(i);
        ASSERT_EQ(double(f[i]), v) << "a float input must hold exactly what the host recomputes (i = " << i << ")";
        ASSERT_EQ(d[i], v);
        ASSERT_GE(v, 0.5);
        ASSERT_LT(v, 2.5);
    }
}

TEST(FreshInputs, EverySeedDrawsANewProblem) {
    const FreshDraw a{1}, b{2};
    int same = 0;
    for (std::size_t i = 0; i < 1000; ++i) same += a.at(i) == b.at(i);
    EXPECT_LT(same, 5) << "two seeds must not draw (nearly) the same inputs";
    std::set<int> bytes;
    for (std::size_t i = 0; i < 20000; ++i) bytes.insert(a.byte_at(i));
    EXPECT_EQ(bytes.size(), 256u) << "a byte draw reaches every value 0 ... 255";
}

TEST(SpotCheck, PicksOnlyEligibleCellsAfterTheOnesAlwaysChecked) {
    const auto cells = gpulab::pick_cells(1000, 50, 7, [](std::size_t c) { return c % 2 == 1; }, {0, 999});
    ASSERT_EQ(cells.size(), 52u);
    EXPECT_EQ(cells[0], 0u);
    EXPECT_EQ(cells[1], 999u);
    for (std::size_t i = 2; i < cells.size(); ++i) EXPECT_EQ(cells[i] % 2, 1u);
}

TEST(SpotCheck, NamesTheWrongAndTheUnwrittenCells) {
    const std::vector<std::size_t> cells{3, 4, 5};
    const auto expected = [](std::size_t c) { return gpulab::CellExpectation{double(c), 1e-6}; };
    const auto name = [](std::size_t c) { return "cell " + std::to_string(c); };
    EXPECT_EQ(gpulab::judge_cells(cells, {3, 4, 5}, expected, name), "");
    const std::string wrong = gpulab::judge_cells(cells, {3, 4.5, NAN}, expected, name);
    EXPECT_NE(wrong.find("2 of 3 cells"), std::string::npos) << wrong;
    EXPECT_NE(wrong.find("cell 4 = 4.5"), std::string::npos) << wrong;
    EXPECT_NE(wrong.find("never written"), std::string::npos) << wrong;
}

// Two distinct addresses stand in for two compiled kernels.
const char kTiledKernel = 0, kNaiveKernel = 0;

RecordedLaunch launch_of(const void* kernel, unsigned block_x, std::size_t shared) {
    RecordedLaunch l;
    l.kernel = kernel;
    l.grid = dim3(100, 1, 1);
    l.block = dim3(block_x, 8, 1);
    l.static_shared_bytes = shared;
    return l;
}

gpulab::TimedWork approved_tiled() {
    gpulab::TimedWork work;
    work.approved = {launch_of(&kTiledKernel, 32, 1360)};
    work.approved_at = "257x129";
    return work;
}

TEST(LaunchAudit, TheApprovedKernelAtAnyGridPasses) {
    RecordedLaunch timed = launch_of(&kTiledKernel, 32, 1360);
    timed.grid = dim3(4096, 1024, 1);  // the grid grows with the problem; the block and the kernel do not
    EXPECT_EQ(gpulab::audit_timed_launch(approved_tiled(), {timed}, {}), "");
}

TEST(LaunchAudit, AnotherKernelOrBlockAtTheTimedSizeIsRefused) {
    const std::string other = gpulab::audit_timed_launch(approved_tiled(), {launch_of(&kNaiveKernel, 32, 0)}, {});
    EXPECT_NE(other.find("not the kernel the technique checks approved"), std::string::npos) << other;
    const std::string block = gpulab::audit_timed_launch(approved_tiled(), {launch_of(&kTiledKernel, 16, 1360)}, {});
    EXPECT_NE(block.find("at 257x129"), std::string::npos) << block;
}

TEST(LaunchAudit, CopiesWaitsAllocationsAndNoKernelAreRefused) {
    const auto work = approved_tiled();
    const std::vector<RecordedLaunch> tiled{launch_of(&kTiledKernel, 32, 1360)};
    for (const RecordedCall& call : {RecordedCall{"cudaMemcpy", "268435456 B, device to host"},
                                     RecordedCall{"cudaMemcpyAsync", "268435456 B, device to device"},
                                     RecordedCall{"cudaDeviceSynchronize", ""}, RecordedCall{"cudaMalloc", "64 B"},
                                     RecordedCall{"cudaMemcpyToSymbol", "1048576 B, host to device"}})
        EXPECT_NE(gpulab::audit_timed_launch(work, tiled, {call}).find("called " + call.name), std::string::npos)
            << call.describe();
    EXPECT_EQ(gpulab::audit_timed_launch(work, tiled, {{"cudaMemcpyToSymbol", "28 B, host to device"}}), "")
        << "coefficients in __constant__ memory are allowed";
    EXPECT_NE(gpulab::audit_timed_launch(work, {}, {}).find("ran no kernel"), std::string::npos);
}

TEST(PhysicalFloor, MemoryBoundWorkCannotBeatTheCopy) {
    gpulab::TimedWork work;
    gpulab::set_memory_floor(work, 2e9, 2000, 1.25);  // 2 GB at 1.25 x 2000 GB/s
    EXPECT_NEAR(work.floor_ms, 0.8, 1e-12);
    EXPECT_NE(work.floor_basis.find("2000 GB/s"), std::string::npos) << work.floor_basis;
}

std::atomic<int> g_stops{0};
void count_stop(const std::string&) { ++g_stops; }

TEST(LaunchDeadline, StopsOnlyALaunchThatOutlivesIt) {
    gpulab::set_test_stopper(&count_stop);
    g_stops = 0;
    { gpulab::LaunchDeadline in_time(2000, "never"); }
    EXPECT_EQ(g_stops, 0);
    {
        gpulab::LaunchDeadline late(20, "too slow to time");
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    EXPECT_EQ(g_stops, 1);
    gpulab::set_test_stopper(nullptr);
    EXPECT_DOUBLE_EQ(gpulab::deadline_ms(0.2), 1000);  // never less than a second
    EXPECT_DOUBLE_EQ(gpulab::deadline_ms(100), 5000);   // else 50 x the reference
}

// A slow kernel's message is one sentence shape in every lab: its fraction of the bar, the bar, the rounds measured,
// what the lab adds, and the cause last.
TEST(SpeedReport, ASlowKernelIsToldItsFractionTheBarAndWhy) {
    gpulab::SpeedVerdict verdict;
    verdict.fraction = 0.4171;
    verdict.threshold = 0.8;
    verdict.rounds = 2;
    EXPECT_EQ(gpulab::below_bar_message("Your tiled kernel (float, 512x512x512)", "the reference's tiled kernel", verdict,
                                        "0.9 ms against 0.4 ms", "Yours: 0 B shared/block. ", "uncoalesced loads"),
              "Your tiled kernel (float, 512x512x512) runs at 0.42x the reference's tiled kernel (0.9 ms against 0.4 ms). "
              "The bar is 0.80x. Measured 2 time(s). Yours: 0 B shared/block. Why: uncoalesced loads");
    EXPECT_EQ(gpulab::below_bar_message("Your step kernel", "the reference's throughput", verdict, "c", "", "w"),
              "Your step kernel runs at 0.42x the reference's throughput (c). The bar is 0.80x. Measured 2 time(s). Why: w");
}

TEST(SpeedReport, TimingOptionsComeFromTheLabSection) {
    const gpulab::Json section{{"warmup", 5}, {"samples", 9}};  // not the defaults (3, 21)
    const gpulab::TimingOptions options = gpulab::timing_options_of(section);
    EXPECT_EQ(options.warmup, 5);
    EXPECT_EQ(options.samples, 9);
}

// A launch that kept its drawn sample from being profiled waits (its speed points come when it can be checked); one
// whose counters showed other work, or whose timed launches did not recompute their output, did not do the work.
TEST(SpeedReport, ASampleThatCouldNotBeCheckedWaitsAndIsNotCalledCheating) {
    gpulab::SpeedVerdict verdict;
    EXPECT_TRUE(verdict.honest());
    EXPECT_FALSE(verdict.waits());
    verdict.drawn = std::string(gpulab::kPointsWait) + "timed sample 6 of 21 ... could not be profiled";
    EXPECT_FALSE(verdict.honest());
    EXPECT_TRUE(verdict.waits());
    EXPECT_STREQ(gpulab::no_speed_figure(verdict), gpulab::kNotChecked);
    verdict.unfaithful = "the timed launch did not recompute its output";
    EXPECT_FALSE(verdict.waits());
    verdict.unfaithful.clear();
    verdict.drawn = "Timed sample 3 of 21 read 4 times the loads CPU execution mode counted";
    EXPECT_FALSE(verdict.waits());
    EXPECT_STREQ(gpulab::no_speed_figure(verdict), gpulab::kNotTheWork);
}

}  // namespace
