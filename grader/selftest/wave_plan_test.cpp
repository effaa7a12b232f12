// The order a lab's tests run in: requirements first, a test whose requirement failed never, and the timed
// tests last, together, once nothing untimed is left to run beside them.
#include "wave_plan.h"

#include <gtest/gtest.h>

namespace {

using namespace gpulab::runner;
using Ids = std::set<std::string>;

// Lab 07's shape: correctness, then technique checks (one in CPU execution mode) and the sanitizer, then the
// speed tests and the reports; one report requires nothing.
const std::map<std::string, std::vector<std::string>> kRequires{
    {"Technique.Shared", {"Tiled.MatchesOracle"}},
    {"Technique.Reads", {"Tiled.MatchesOracle"}},
    {"Sanitizer.NoErrors", {"Naive.MatchesOracle", "Tiled.MatchesOracle"}},
    {"Speed.Naive", {"Naive.MatchesOracle"}},
    {"Speed.Tiled", {"Tiled.MatchesOracle", "Technique.Shared", "Technique.Reads"}},
    {"Report.Roofline", {"Naive.MatchesOracle"}}};
const Ids kTimed{"Speed.Naive", "Speed.Tiled", "Report.Study", "Report.Roofline"};
const Ids kAll{"Naive.MatchesOracle", "Tiled.MatchesOracle", "Technique.Shared", "Technique.Reads", "Sanitizer.NoErrors",
               "Speed.Naive", "Speed.Tiled", "Report.Study", "Report.Roofline"};

// Runs the plan to the end, every test passing unless named in `failing`: the waves, in order.
std::vector<WavePlan> every_wave(const Ids& failing = {}) {
    Ids waiting = kAll, not_passed;
    std::vector<WavePlan> waves;
    while (!waiting.empty() && waves.size() < 10) {
        waves.push_back(plan_wave(waiting, kRequires, kTimed, [&](const std::string& id) { return !not_passed.count(id); }));
        for (const std::string& id : waves.back().ready) {
            waiting.erase(id);
            if (failing.count(id)) not_passed.insert(id);
        }
        for (const auto& [id, required] : waves.back().not_counted) waiting.erase(id), not_passed.insert(id);
    }
    return waves;
}

TEST(WavePlan, TimedTestsRunLastAndTogether) {
    const std::vector<WavePlan> waves = every_wave();
    ASSERT_EQ(waves.size(), 3u);
    EXPECT_EQ(waves[0].ready, (Ids{"Naive.MatchesOracle", "Tiled.MatchesOracle"}));
    EXPECT_FALSE(waves[0].timed);
    // The speed test of the naive kernel and the report that requires nothing could run earlier: they wait,
    // so that no untimed test (a sanitizer, a read count in another process) runs beside a clock.
    EXPECT_EQ(waves[1].ready, (Ids{"Technique.Shared", "Technique.Reads", "Sanitizer.NoErrors"}));
    EXPECT_FALSE(waves[1].timed);
    EXPECT_EQ(waves[2].ready, kTimed);
    EXPECT_TRUE(waves[2].timed);
}

TEST(WavePlan, AFailedRequirementHoldsBackItsDependantsOnly) {
    const std::vector<WavePlan> waves = every_wave({"Tiled.MatchesOracle"});
    ASSERT_EQ(waves.size(), 3u);
    EXPECT_EQ(waves[1].ready, Ids{});
    EXPECT_EQ(waves[1].not_counted, (std::map<std::string, std::string>{{"Technique.Shared", "Tiled.MatchesOracle"},
                                                                        {"Technique.Reads", "Tiled.MatchesOracle"},
                                                                        {"Sanitizer.NoErrors", "Tiled.MatchesOracle"}}));
    EXPECT_EQ(waves[2].ready, (Ids{"Speed.Naive", "Report.Study", "Report.Roofline"}));
    EXPECT_EQ(waves[2].not_counted.at("Speed.Tiled"), "Tiled.MatchesOracle");
    EXPECT_TRUE(waves[2].timed);
}

TEST(WavePlan, TimedTestsAloneWhenTheUntimedAreDecidedElsewhere) {
    // make test's timed checks: the untimed outcomes come from an earlier run (--untimed-from).
    const WavePlan plan = plan_wave(kTimed, kRequires, kTimed, [](const std::string&) { return true; });
    EXPECT_EQ(plan.ready, kTimed);
    EXPECT_TRUE(plan.timed);
}

TEST(WavePlan, ACycleOfRequirementsRunsTogetherInsteadOfWaitingForever) {
    const std::map<std::string, std::vector<std::string>> cycle{{"A.One", {"B.Two"}}, {"B.Two", {"A.One"}}};
    const WavePlan plan = plan_wave({"A.One", "B.Two", "Speed.X"}, cycle, {"Speed.X"}, [](const std::string&) { return true; });
    EXPECT_EQ(plan.ready, (Ids{"A.One", "B.Two", "Speed.X"}));
    EXPECT_TRUE(plan.timed);
}

}  // namespace

namespace {

// Technique.SameWorkOnGpu (issue 43) decides from the timed samples the speed test drew: lab.json lists it "after" the
// speed test, which runs whatever its verdict (a slow kernel's speed test fails; its samples still count), and it
// waits for no untimed test to hold the timed wave back.
TEST(WavePlan, AnUntimedTestAfterATimedOneRunsOnceTheTimedWaveIsDone) {
    std::map<std::string, std::vector<std::string>> requires_of = kRequires;
    requires_of["Technique.SameWork"] = {"Tiled.MatchesOracle", "Technique.Shared", "Technique.Reads"};
    const std::map<std::string, std::vector<std::string>> after_of{{"Technique.SameWork", {"Speed.Tiled"}}};
    Ids waiting = kAll;
    waiting.insert("Technique.SameWork");
    const Ids failing{"Speed.Tiled"};  // too slow: its samples were drawn all the same
    Ids not_passed;
    std::vector<WavePlan> waves;
    while (!waiting.empty() && waves.size() < 10) {
        waves.push_back(plan_wave(waiting, requires_of, kTimed,
                                  [&](const std::string& id) { return !not_passed.count(id); }, after_of));
        for (const std::string& id : waves.back().ready) {
            waiting.erase(id);
            if (failing.count(id)) not_passed.insert(id);
        }
        for (const auto& [id, required] : waves.back().not_counted) waiting.erase(id), not_passed.insert(id);
    }
    ASSERT_EQ(waves.size(), 4u);
    EXPECT_EQ(waves[2].ready, kTimed);
    EXPECT_TRUE(waves[2].timed);
    EXPECT_EQ(waves[3].ready, Ids{"Technique.SameWork"});
    EXPECT_TRUE(waves[3].not_counted.empty());
    EXPECT_FALSE(waves[3].timed);
}

}  // namespace

namespace {

// CPU execution mode's read counts run beside the waves after theirs (test_waves.cpp): a timed test that requires one
// starts while it runs (scoring withholds its points afterwards where the count failed); an untimed test that requires
// or follows one waits; where nothing else can run, the plan says to wait for it.
TEST(WavePlan, ATimedTestStartsBesideARequiredTestStillRunning) {
    const Ids running{"Technique.Reads"};
    Ids waiting = kAll;
    for (const std::string& id : {"Naive.MatchesOracle", "Tiled.MatchesOracle", "Technique.Shared", "Technique.Reads",
                                  "Sanitizer.NoErrors"})
        waiting.erase(id);
    const WavePlan plan = plan_wave(waiting, kRequires, kTimed, [](const std::string&) { return true; }, {}, running);
    EXPECT_EQ(plan.ready, kTimed);
    EXPECT_TRUE(plan.timed);
    EXPECT_FALSE(plan.wait_for_running);
}

TEST(WavePlan, AnUntimedTestWaitsForARequiredTestStillRunning) {
    std::map<std::string, std::vector<std::string>> requires_of = kRequires;
    requires_of["Technique.SameWork"] = {"Technique.Reads"};
    const std::map<std::string, std::vector<std::string>> after_of{{"Technique.SameWork", {"Speed.Tiled"}}};
    const WavePlan plan = plan_wave({"Technique.SameWork"}, requires_of, kTimed, [](const std::string&) { return true; },
                                    after_of, {"Technique.Reads"});
    EXPECT_TRUE(plan.ready.empty());
    EXPECT_TRUE(plan.not_counted.empty());
    EXPECT_TRUE(plan.wait_for_running);
    // Decided (passed): it runs.
    const WavePlan after = plan_wave({"Technique.SameWork"}, requires_of, kTimed, [](const std::string&) { return true; },
                                     after_of, {});
    EXPECT_EQ(after.ready, Ids{"Technique.SameWork"});
}

// A required test still running never holds a test back as "not counted": its verdict is not known yet.
TEST(WavePlan, ARunningRequirementIsNotTakenForAFailedOne) {
    const WavePlan plan = plan_wave({"Speed.Tiled"}, kRequires, kTimed,
                                    [](const std::string& id) { return id != "Technique.Reads"; }, {}, {"Technique.Reads"});
    EXPECT_EQ(plan.ready, Ids{"Speed.Tiled"});
    EXPECT_TRUE(plan.not_counted.empty());
}

// Report.GpuProfile is listed "after" Report.AccessAnalysis, which a GPU grading runs in CPU execution mode beside
// the other waves: the profile waits for it to end, so that CPU execution mode's figures are handed over to be held
// to the GPU's (on every grading, not only where the CPU part happened to end first).
TEST(WavePlan, AReportAfterATestRunningBesideWaitsForIt) {
    const std::map<std::string, std::vector<std::string>> after_of{
        {"Report.GpuProfile", {"Speed.Tiled", "Report.AccessAnalysis"}}};
    const WavePlan plan = plan_wave({"Report.GpuProfile"}, kRequires, kTimed, [](const std::string&) { return true; },
                                    after_of, {"Report.AccessAnalysis"});
    EXPECT_TRUE(plan.ready.empty());
    EXPECT_TRUE(plan.wait_for_running);
    const WavePlan joined = plan_wave({"Report.GpuProfile"}, kRequires, kTimed, [](const std::string&) { return true; },
                                      after_of, {});
    EXPECT_EQ(joined.ready, Ids{"Report.GpuProfile"});
}

}  // namespace
