// The drawn timed samples (gpulab/gpu_profile.h): how many are drawn and the arithmetic behind it, the draw itself,
// the samples handed from the timing process to later ones, and the check of a drawn sample against CPU execution
// mode's count. No GPU needed: the samples are built by hand in the shape the timing process records them
// (sample_counters.h), with lab 02's figures at 8192^2 (the reference's tiled kernel: 1.313 floats per cell on an H200,
// 1.312 counted in CPU execution mode).
#include "gpulab/counted_work.h"
#include "gpulab/gpu_profile.h"
#include "gpulab/handed_over.h"
#include "gpulab/sample_counters.h"
#include "gpulab/timed_samples.h"
#include "gpulab/timed_work.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace {

using namespace gpulab;

constexpr double kCells = 8190.0 * 8190.0;  // lab 02's interior at N = 8192

CountedWork lab02_count() {
    CountedWork c;
    c.suite = "TiledStep", c.instance = "8192x8192";
    c.call = "launch_step_tiled at 8192x8192 (32 of its 262144 blocks counted)";
    c.kernel = "your tiled kernel", c.element = "input", c.per = "cell";
    c.outputs = kCells;
    c.element_bytes = 4;
    c.global_per_output = 1.312;
    c.shared_per_output = 5.0;
    return c;
}

// A drawn sample of the tiled step whose threads loaded `global` and `shared` floats per cell.
ProfiledLaunch drawn_tiled(double global, double shared, int sample = 14) {
    ProfiledLaunch l;
    l.suite = "TiledStep", l.instance = "8192x8192", l.call = "launch_step_tiled at 8192x8192";
    l.sample = sample, l.samples = 21;
    ProfiledKernel k;
    k.name = "heat_step_tiled";
    k.metrics = {{ncu_metric::kGlobalLoadBytes, global * 4 * kCells}, {ncu_metric::kSharedLoadBytes, shared * 4 * kCells}};
    l.kernels = {k};
    return l;
}

// The arithmetic of the issue: a launch doing other work on more than half of its samples escapes every draw with
// probability C(n - other, k) / C(n, k); the draw is the least k that makes that at most 1%.
TEST(DrawnSamples, EnoughAreDrawnToCatchOtherWorkOnMoreThanHalfWithNinetyNinePercent) {
    EXPECT_NEAR(chance_all_miss(21, 11, 6), 210.0 / 54264.0, 1e-12);  // C(10,6) / C(21,6) = 0.39%
    EXPECT_NEAR(chance_all_miss(21, 11, 5), 252.0 / 20349.0, 1e-12);  // 1.24%: five are not enough
    EXPECT_EQ(drawn_samples_for(21), 6);
    EXPECT_EQ(drawn_samples_for(15), 5);  // lab 07: C(7,5) / C(15,5) = 0.70%
    for (int n = 1; n <= 60; ++n) {
        const int k = drawn_samples_for(n);
        EXPECT_LE(chance_all_miss(n, n / 2 + 1, k), 0.01) << n;
        if (k > 1) EXPECT_GT(chance_all_miss(n, n / 2 + 1, k - 1), 0.01) << n;  // the least that does
    }
}

TEST(DrawnSamples, TheDrawIsDistinctSortedInRangeAndNotTheSameEveryTime) {
    std::set<std::vector<int>> seen;
    for (int t = 0; t < 20; ++t) {
        const std::vector<int> d = draw_samples(21, 6);
        ASSERT_EQ(d.size(), 6u);
        EXPECT_TRUE(std::is_sorted(d.begin(), d.end()));
        EXPECT_EQ(std::set<int>(d.begin(), d.end()).size(), 6u);
        EXPECT_GE(d.front(), 0);
        EXPECT_LT(d.back(), 21);
        seen.insert(d);
    }
    // 54264 possible draws: twenty equal ones would mean the source is fixed (the printed seed must not give it).
    EXPECT_GT(seen.size(), 1u);
    EXPECT_EQ(draw_samples(3, 5).size(), 3u);
}

TEST(DrawnSamples, AnHonestSampleAgrees) {
    const DrawnSampleVerdict v = check_drawn_sample(drawn_tiled(1.313, 5.0), lab02_count());
    EXPECT_TRUE(v.compared);
    EXPECT_TRUE(v.agree) << v.message;
    EXPECT_NEAR(v.gpu, 1.313, 1e-9);
    EXPECT_NEAR(v.gpu_shared, 5.0, 1e-9);
}

// Lab 02's cheat: the neighbours from global memory on the timed samples, five reads a cell against the tile's 1.31.
TEST(DrawnSamples, ASampleThatReadsAroundTheTileFailsNamingItsSampleAndBothFigures) {
    const DrawnSampleVerdict v = check_drawn_sample(drawn_tiled(5.0, 1.0, 14), lab02_count());
    EXPECT_FALSE(v.agree);
    EXPECT_NE(v.message.find("timed sample 14 of 21"), std::string::npos) << v.message;
    EXPECT_NE(v.message.find("reads its input 5.00 times per cell from global memory on the GPU and 1.31 times in CPU "
                             "execution mode (at most 1.89 allowed)"),
              std::string::npos)
        << v.message;
    EXPECT_NE(v.message.find("reads 1.00 values from shared memory per cell on the GPU and 5.00"), std::string::npos)
        << v.message;
}

// A kernel that keeps its global reads down but skips the tile's reads on the GPU (reads its neighbours from registers
// it loaded some other way) fails by shared memory alone.
TEST(DrawnSamples, ATileSkippedOnTheGpuFailsBySharedMemory) {
    const DrawnSampleVerdict v = check_drawn_sample(drawn_tiled(1.3, 0.5), lab02_count());
    EXPECT_FALSE(v.agree);
    EXPECT_NE(v.message.find("from shared memory per cell on the GPU"), std::string::npos) << v.message;
    CountedWork without_shared = lab02_count();
    without_shared.shared_per_output = std::numeric_limits<double>::quiet_NaN();  // a lab that counted none
    EXPECT_TRUE(check_drawn_sample(drawn_tiled(1.3, 0.5), without_shared).agree);
}

// Labs 05 and 06 count each block's shared memory up to a budget, so CPU execution mode has no per-cell figure: the
// shared reads are compared per value staged (2.26 for lab 05's reference in its counted blocks' first planes; its whole
// launch reads each staged value about six times on the GPU).
CountedWork coarsened_count() {
    CountedWork c = lab02_count();
    c.suite = "CoarsenedStencil", c.instance = "512x512x512_float";
    c.global_per_output = 1.21;
    c.shared_per_output = std::numeric_limits<double>::quiet_NaN();
    c.shared_per_staged = 2.26;
    return c;
}

ProfiledLaunch drawn_coarsened(double global, double shared_read, double shared_staged) {
    ProfiledLaunch l = drawn_tiled(global, shared_read);
    l.suite = "CoarsenedStencil", l.instance = "512x512x512_float";
    l.kernels[0].metrics[ncu_metric::kSharedStoreBytes] = shared_staged * 4 * kCells;
    return l;
}

TEST(DrawnSamples, WhereBlocksWereCountedUpToABudgetSharedReadsAreComparedPerValueStaged) {
    DrawnSampleVerdict v = check_drawn_sample(drawn_coarsened(1.21, 6.0, 1.05), coarsened_count());
    EXPECT_TRUE(v.agree) << v.message;
    EXPECT_TRUE(v.shared_per_staged);
    EXPECT_NEAR(v.gpu_shared, 6.0 / 1.05, 1e-9);
    EXPECT_NEAR(v.cpu_shared, 2.26, 1e-9);
    // Fills its planes on the GPU but takes the neighbours from elsewhere: one read per value staged.
    v = check_drawn_sample(drawn_coarsened(1.21, 1.05, 1.05), coarsened_count());
    EXPECT_FALSE(v.agree);
    EXPECT_NE(v.message.find("reads 1.00 values from shared memory per value it stages there on the GPU and 2.26 in CPU "
                             "execution mode (at least 1.56 required)"),
              std::string::npos)
        << v.message;
    // Stages nothing on the GPU: nothing read back from it, 0 per value staged.
    v = check_drawn_sample(drawn_coarsened(1.21, 0.0, 0.0), coarsened_count());
    EXPECT_FALSE(v.agree);
    EXPECT_NE(v.message.find("reads 0.00 values from shared memory per value it stages"), std::string::npos) << v.message;
    // Where the GPU's shared bytes are not counted (the metric absent from the read), nothing passes by default.
    ProfiledLaunch unread = drawn_coarsened(1.21, 6.0, 1.05);
    unread.kernels[0].metrics.erase(ncu_metric::kSharedStoreBytes);
    EXPECT_FALSE(check_drawn_sample(unread, coarsened_count()).agree);
}

// A sample the launch kept from being profiled does not pass; one the machine kept from it is not compared.
TEST(DrawnSamples, ASampleTheLaunchKeptFromTheProfilerFailsOneTheMachineKeptIsNotCompared) {
    ProfiledLaunch kept = drawn_tiled(1.3, 5.0);
    kept.kernels.clear();
    kept.error = "the launch ran more than 16 kernels, more than the grader profiles in one launch (484 were left out)";
    kept.launch_at_fault = true;
    DrawnSampleVerdict v = check_drawn_sample(kept, lab02_count());
    EXPECT_FALSE(v.agree);
    EXPECT_NE(v.message.find("could not be profiled: the launch ran more than 16 kernels"), std::string::npos) << v.message;
    kept.launch_at_fault = false;
    kept.error = "this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM)";
    v = check_drawn_sample(kept, lab02_count());
    EXPECT_TRUE(v.agree);
    EXPECT_FALSE(v.compared);
}

// The timing process records its samples as JSON; a later process reads the same samples back.
TEST(DrawnSamples, SamplesSurviveTheirJson) {
    ProfiledLaunch l = drawn_tiled(1.313, 5.0, 9);
    l.role = "reference", l.full = true, l.seconds = 0.092, l.device = "NVIDIA H100 80GB HBM3";
    l.kernels[0].metrics[ncu_metric::kAchievedOccupancy] = std::numeric_limits<double>::quiet_NaN();
    const std::vector<ProfiledLaunch> back = drawn_samples_of(drawn_samples_json({l}));
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].role, "reference");
    EXPECT_EQ(back[0].which(), "timed sample 9 of 21");
    EXPECT_TRUE(back[0].full);
    EXPECT_EQ(back[0].device, "NVIDIA H100 80GB HBM3");
    EXPECT_DOUBLE_EQ(back[0].total(ncu_metric::kGlobalLoadBytes), l.total(ncu_metric::kGlobalLoadBytes));
    EXPECT_TRUE(std::isnan(back[0].kernels[0].metric(ncu_metric::kAchievedOccupancy)));
}

// A process that times nothing (Technique.SameWorkOnGpu, in CPU execution mode) sees the timing process's samples,
// handed over by gpulab-grade; the report row is the sample read with every metric.
TEST(DrawnSamples, HandedOverSamplesAreTheProfileOfAProcessThatTimesNothing) {
    ProfiledLaunch check = drawn_tiled(1.31, 5.0, 3), full = drawn_tiled(1.313, 5.0, 11);
    full.full = true;
    nlohmann::json handed = {{"properties", {{"drawn_counters", {drawn_samples_json({check, full}).dump()}}}}};
    set_handed_over(handed);
    const GpuProfile& p = gpu_profile();
    EXPECT_TRUE(p.available) << p.why;
    ASSERT_EQ(p.drawn("TiledStep", "8192x8192").size(), 2u);
    ASSERT_NE(p.find("TiledStep", "8192x8192"), nullptr);
    EXPECT_EQ(p.find("TiledStep", "8192x8192")->sample, 11);
    set_handed_over(nlohmann::json::object());
    EXPECT_FALSE(gpu_profile().available);
    EXPECT_NE(gpu_profile().why.find("no timed sample"), std::string::npos) << gpu_profile().why;
}

TEST(DrawnSamples, TheReasonTheTimingProcessCouldNotReadCountersIsHandedOverToo) {
    set_handed_over({{"properties", {{"drawn_counters_unavailable", {"this user may not read the GPU's performance "
                                                                      "counters (ERR_NVGPUCTRPERM)"}}}}});
    EXPECT_FALSE(gpu_profile().available);
    EXPECT_NE(gpu_profile().why.find("ERR_NVGPUCTRPERM"), std::string::npos) << gpu_profile().why;
    set_handed_over(nlohmann::json::object());
}

// CPU execution mode's count of a timed launch, handed over to the timing process.
TEST(DrawnSamples, TheCountOfATimedLaunchIsFoundByItsKey) {
    const nlohmann::json counts = {{counted_work_key("TiledStep", "8192x8192"), to_json(lab02_count())}};
    set_handed_over({{"properties", {{"timed_count", {counts.dump()}}}}});
    CountedWork found;
    std::string why;
    ASSERT_TRUE(counted_work("TiledStep", "8192x8192", found, &why)) << why;
    EXPECT_DOUBLE_EQ(found.global_per_output, 1.312);
    EXPECT_DOUBLE_EQ(found.outputs, kCells);
    EXPECT_FALSE(counted_work("NaiveStep", "8192x8192", found, &why));
    EXPECT_NE(why.find("NaiveStep 8192x8192"), std::string::npos) << why;
    set_handed_over(nlohmann::json::object());
}

// Which launches were timed, and whether the launch itself stopped its series: in this process, and handed over to
// the process that runs Technique.SameWorkOnGpu, where a series stopped by the launch is one nobody can vouch for.
TEST(DrawnSamples, ATimedSeriesAndOneTheLaunchStoppedAreToldApartHereAndHandedOver) {
    EXPECT_EQ(timed_series_of("TiledStep 4096x4096"), TimedSeries::not_timed);
    note_timed_launch("TiledStep 4096x4096", TimedSeries::timed);
    EXPECT_EQ(timed_series_of("TiledStep 4096x4096"), TimedSeries::timed);
    note_timed_launch("TiledStep 4096x4096", TimedSeries::stopped_by_the_launch);
    note_timed_launch("TiledStep 4096x4096", TimedSeries::timed);  // a later series does not clear it
    EXPECT_EQ(timed_series_of("TiledStep 4096x4096"), TimedSeries::stopped_by_the_launch);
    set_handed_over({{"properties", {{"timed_launches", {R"({"Tiled N4096": false})", R"({"Tiled N3001": true})"}}}}});
    EXPECT_EQ(timed_series_of("Tiled N4096"), TimedSeries::timed);
    EXPECT_EQ(timed_series_of("Tiled N3001"), TimedSeries::stopped_by_the_launch);
    EXPECT_EQ(timed_series_of("TiledBt N4096"), TimedSeries::not_timed);
    set_handed_over(nlohmann::json::object());
}

// The lists: the compared metrics in both, everything the report shows in the full one; the shared bytes only where
// the lab counts them (lab 07 leaves them out: patching its 2.7 billion shared loads per product costs seconds).
TEST(DrawnSamples, TheMetricListsHoldWhatTheCheckAndTheReportRead) {
    for (bool shared : {true, false})
        for (CounterList list : {CounterList::check, CounterList::full}) {
            const std::vector<std::string> m = counter_metrics(list, shared);
            auto has = [&](const char* name) { return std::find(m.begin(), m.end(), name) != m.end(); };
            EXPECT_TRUE(has(ncu_metric::kGlobalLoadBytes));
            EXPECT_TRUE(has(ncu_metric::kSharedLoadRequests));
            EXPECT_EQ(has(ncu_metric::kSharedLoadBytes), shared);
            EXPECT_EQ(has(ncu_metric::kAchievedOccupancy), list == CounterList::full);
            EXPECT_EQ(has(ncu_metric::kSharedLoadConflicts), list == CounterList::full);
        }
    Json lab07 = {{"gpu_profile", {{"shared_bytes", false}}}};
    std::string why;
    EXPECT_FALSE(shared_bytes_counted(lab07, &why));
    EXPECT_NE(why.find("shared_bytes"), std::string::npos);
}

TEST(DrawnSamples, ARecordedLaunchGivesTheLaunchAttributesUnderNcusNames) {
    RecordedLaunch l;
    l.grid = dim3(256, 512), l.block = dim3(32, 16);
    l.static_shared_bytes = 2448, l.registers = 30;
    const auto m = launch_metrics(l);
    EXPECT_DOUBLE_EQ(m.at(ncu_metric::kBlockSize), 512);
    EXPECT_DOUBLE_EQ(m.at(ncu_metric::kGridSize), 131072);
    EXPECT_DOUBLE_EQ(m.at(ncu_metric::kSharedStatic), 2448);
    EXPECT_DOUBLE_EQ(m.at(ncu_metric::kRegisters), 30);
}

// A launch seen running more kernels than the grader profiles in one launch is not replayed when its sample is
// drawn (hundreds of small kernels would cost seconds a sample): it runs unprofiled, once, and the speed points wait.
// Last in this file: its read joins the process's profile, which the tests above expect empty when run together.
TEST(DrawnSamples, ALaunchOfMoreKernelsThanProfiledIsRunOnceAndDecidesTheVerdict) {
    TimedWork work;
    work.suite = "ManyKernels", work.instance = "1x1", work.call = "launch_many at 1x1";
    ProfiledSamples series(&work, {"yours"}, 21);
    EXPECT_FALSE(series.yours_at_fault());
    series.saw_kernels(0, kMaxProfiledKernels + 87);
    int runs = 0;
    std::vector<RecordedLaunch> launches;
    std::vector<RecordedCall> calls;
    series.run(0, 6, [&runs] { ++runs; }, launches, calls);
    EXPECT_EQ(runs, 1);
    ASSERT_EQ(series.read().size(), 1u);
    EXPECT_TRUE(series.read()[0].launch_at_fault);
    EXPECT_NE(series.read()[0].error.find("runs 103 kernels"), std::string::npos) << series.read()[0].error;
    EXPECT_TRUE(series.yours_at_fault());
    const std::string verdict = drawn_samples_verdict(work, series.read());
    EXPECT_NE(verdict.find("The speed points wait: timed sample 7 of 21"), std::string::npos) << verdict;
}

}  // namespace
