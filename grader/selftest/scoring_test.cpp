// Points follow the config: all or nothing unless a test says "proportional", "not run" without a GPU,
// and speed gated on correctness.
#include "scoring.h"

#include "gpulab/test_id.h"

#include <gtest/gtest.h>

namespace {

using namespace gpulab::runner;

nlohmann::json config() {
    return nlohmann::json::parse(R"({
      "lab": "00-x", "tests": [
        {"id": "Step.MatchesOracle", "points": 20},
        {"id": "Speed.Fast", "points": 10, "requires": ["Step.MatchesOracle"]},
        {"id": "Host.Works", "points": 5},
        {"id": "Stability.PerKernel", "points": 8, "credit": "proportional"}
      ]})");
}

TestOutcome outcome(const std::string& name, const std::string& result) {
    TestOutcome t;
    t.name = name;
    t.id = gpulab::test_id_of(name);
    t.result = result;
    return t;
}

const IdScore& find(const LabScore& lab, const std::string& id) {
    for (const IdScore& s : lab.ids)
        if (s.id == id) return s;
    throw std::runtime_error("no " + id);
}

TEST(Scoring, OneFailingCaseCostsAnAllOrNothingTestItsPoints) {
    SessionResult session;
    session.tests = {outcome("Sizes/Step.MatchesOracle/a", "passed"), outcome("Sizes/Step.MatchesOracle/b", "failed"),
                     outcome("Sizes/Step.MatchesOracle/c", "failed"), outcome("Speed.Fast", "passed"),
                     outcome("Host.Works", "passed")};
    const LabScore lab = score_lab(config(), session);
    const IdScore& step = find(lab, "Step.MatchesOracle");
    EXPECT_DOUBLE_EQ(step.points, 0);
    EXPECT_EQ(step.verdict, "2/3 failed");
    // Every failing case is named, and the policy is said.
    bool listed = false, said = false;
    for (const std::string& d : step.details) {
        listed = listed || d.find("failed: b, c") != std::string::npos;
        said = said || d.find("all or nothing") != std::string::npos;
    }
    EXPECT_TRUE(listed);
    EXPECT_TRUE(said);
}

// A test the grader binary does not have is a grader problem; one a --filter left out is not, and costs its points
// as "left out" (a run narrowed for debugging grades nothing it did not run).
TEST(Scoring, ATestLeftOutByAFilterIsNoGraderProblem) {
    SessionResult session;
    session.tests = {outcome("Sizes/Step.MatchesOracle/a", "passed")};
    const LabScore unfiltered = score_lab(config(), session);
    EXPECT_EQ(find(unfiltered, "Host.Works").verdict, "missing");
    EXPECT_EQ(unfiltered.problems.size(), 3u);  // Speed.Fast, Host.Works, Stability.PerKernel
    session.filtered = true;
    const LabScore filtered = score_lab(config(), session);
    EXPECT_EQ(find(filtered, "Host.Works").verdict, "left out (--filter)");
    EXPECT_DOUBLE_EQ(find(filtered, "Host.Works").points, 0);
    EXPECT_TRUE(filtered.problems.empty());
    EXPECT_DOUBLE_EQ(filtered.points, 20);
}

// Cases decided with another one (it broke the CUDA context, or hit the time limit: test_session.cpp) are
// counted as the test's failures, and the student reads that they did not run and why.
TEST(Scoring, CasesDecidedWithAnotherAreSaidNotToHaveRun) {
    SessionResult session;
    TestOutcome broke = outcome("Sizes/Step.MatchesOracle/a", "failed"), b = outcome("Sizes/Step.MatchesOracle/b", "failed"),
                c = outcome("Sizes/Step.MatchesOracle/c", "failed");
    broke.messages = {"an illegal address"};
    b.properties["decided_with"] = c.properties["decided_with"] =
        "Sizes/Step.MatchesOracle/a, a case of the same test, left the CUDA context unusable";
    session.tests = {broke, b, c, outcome("Host.Works", "passed")};
    const LabScore lab = score_lab(config(), session);
    const IdScore& step = find(lab, "Step.MatchesOracle");
    EXPECT_DOUBLE_EQ(step.points, 0);
    EXPECT_EQ(step.verdict, "1/3 failed, 2 not run");
    // The case that ran and failed is named; the two decided with it are counted apart, with the reason.
    bool said = false;
    for (const std::string& d : step.details)
        said = said || d.find("1 of 3 cases of Step.MatchesOracle failed: a. 2 more did not run: Sizes/Step.MatchesOracle/a, "
                              "a case of the same test, left the CUDA context unusable") != std::string::npos;
    EXPECT_TRUE(said) << step.details.back();
}

TEST(Scoring, ProportionalTestsGiveEachPassingCaseItsShare) {
    SessionResult session;
    session.tests = {outcome("Kernels/Stability.PerKernel/naive", "passed"),
                     outcome("Kernels/Stability.PerKernel/tiled", "failed")};
    const LabScore lab = score_lab(config(), session);
    EXPECT_DOUBLE_EQ(find(lab, "Stability.PerKernel").points, 4);
}

TEST(Scoring, SpeedCountsOnlyForCorrectCode) {
    SessionResult session;
    session.tests = {outcome("Step.MatchesOracle/a", "failed"), outcome("Speed.Fast", "passed"),
                     outcome("Host.Works", "passed")};
    const LabScore lab = score_lab(config(), session);
    EXPECT_DOUBLE_EQ(find(lab, "Speed.Fast").points, 0);
    EXPECT_EQ(find(lab, "Speed.Fast").verdict, "not counted");
}

TEST(Scoring, SkippedTestsAreNotRunNotFailed) {
    SessionResult session;
    session.tests = {outcome("Step.MatchesOracle/a", "skipped"), outcome("Speed.Fast", "skipped"),
                     outcome("Host.Works", "passed")};
    const LabScore lab = score_lab(config(), session);
    EXPECT_DOUBLE_EQ(lab.points, 5);
    EXPECT_DOUBLE_EQ(lab.points_not_run, 30);  // Stability.PerKernel did not report at all: missing, not "not run"
    EXPECT_EQ(find(lab, "Speed.Fast").verdict, "not run");
}

// A requirement that could not measure here (the GPU's counters unreadable) holds nothing back; one that skipped
// for another reason (waiting for a correct kernel) does.
TEST(Scoring, ARequirementThatCouldNotMeasureHoldsNothingBack) {
    for (const bool unmeasurable : {true, false}) {
        SessionResult session;
        TestOutcome step = outcome("Step.MatchesOracle/a", "skipped");
        if (unmeasurable) step.properties["skip_holds_back"] = "no";
        session.tests = {step, outcome("Speed.Fast", "passed"), outcome("Host.Works", "passed")};
        const LabScore lab = score_lab(config(), session);
        EXPECT_EQ(find(lab, "Speed.Fast").verdict, unmeasurable ? "passed" : "not counted") << unmeasurable;
        EXPECT_DOUBLE_EQ(find(lab, "Speed.Fast").points, unmeasurable ? 10 : 0) << unmeasurable;
        EXPECT_EQ(find(lab, "Step.MatchesOracle").verdict, "not run");
    }
}

TEST(Scoring, ATestThatSkipsItselfBecauseItsRequirementFailedIsNotCountedNotNotRun) {
    SessionResult session;
    session.tests = {outcome("Step.MatchesOracle/a", "failed"), outcome("Speed.Fast", "skipped"),
                     outcome("Host.Works", "passed"), outcome("Kernels/Stability.PerKernel/naive", "passed")};
    const LabScore lab = score_lab(config(), session);
    EXPECT_EQ(find(lab, "Speed.Fast").verdict, "not counted");
    EXPECT_DOUBLE_EQ(lab.points_not_run, 0);
}

TEST(Scoring, ATestTheRunnerLeftOutStaysNotRunWhateverItRequires) {
    SessionResult session;
    TestOutcome speed = outcome("Speed.Fast", "skipped");
    speed.properties["not_run_because"] = "needs a GPU";
    session.tests = {outcome("Step.MatchesOracle/a", "failed"), speed, outcome("Host.Works", "passed"),
                     outcome("Kernels/Stability.PerKernel/naive", "passed")};
    const LabScore lab = score_lab(config(), session);
    EXPECT_EQ(find(lab, "Speed.Fast").verdict, "not run");
    EXPECT_DOUBLE_EQ(lab.points_not_run, 10);
}

TEST(Scoring, ATestHeldBackBecauseItsRequirementFailedIsNotCountedNotNotRun) {
    // gpulab-grade runs a test that requires others after them, and not at all once one failed.
    SessionResult session;
    TestOutcome speed = outcome("Speed.Fast", "skipped");
    speed.properties["not_run_because"] = "not counted: Step.MatchesOracle did not pass";
    session.tests = {outcome("Step.MatchesOracle/a", "failed"), speed, outcome("Host.Works", "passed"),
                     outcome("Kernels/Stability.PerKernel/naive", "passed")};
    const LabScore lab = score_lab(config(), session);
    EXPECT_EQ(find(lab, "Speed.Fast").verdict, "not counted");
    EXPECT_DOUBLE_EQ(find(lab, "Speed.Fast").points, 0);
    EXPECT_DOUBLE_EQ(lab.points_not_run, 0);
}

// A speed test that ran beside the read count it requires (test_waves.cpp) is not counted once the count fails, and
// one that a later test confirms ("confirmed_by": Technique.SameWorkOnGpu, from its drawn samples) is not counted
// where that test failed; a confirming test that skipped (no counters here) takes nothing.
TEST(Scoring, ASpeedTestIsNotCountedWhereTheTestThatConfirmsItFailed) {
    const nlohmann::json lab_json = nlohmann::json::parse(R"({
      "lab": "00-x", "tests": [
        {"id": "Step.MatchesOracle", "points": 20},
        {"id": "Technique.Counted", "points": 5, "requires": ["Step.MatchesOracle"]},
        {"id": "Speed.Tiled", "points": 10, "requires": ["Step.MatchesOracle", "Technique.Counted"],
         "confirmed_by": ["Technique.SameWork"]},
        {"id": "Technique.SameWork", "points": 2, "requires": ["Technique.Counted"], "after": ["Speed.Tiled"]}
      ]})");
    struct Case {
        std::string counted, same_work, verdict;
        double points;
    };
    for (const Case& c : {Case{"passed", "passed", "passed", 10}, Case{"failed", "passed", "not counted", 0},
                          Case{"passed", "failed", "not counted", 0}, Case{"passed", "skipped", "passed", 10}}) {
        SessionResult session;
        session.tests = {outcome("Step.MatchesOracle", "passed"), outcome("Technique.Counted", c.counted),
                         outcome("Speed.Tiled", "passed"), outcome("Technique.SameWork", c.same_work)};
        const LabScore lab = score_lab(lab_json, session);
        const IdScore& speed = find(lab, "Speed.Tiled");
        EXPECT_EQ(speed.verdict, c.verdict) << c.counted << " " << c.same_work;
        EXPECT_DOUBLE_EQ(speed.points, c.points) << c.counted << " " << c.same_work;
        if (c.same_work == "failed") {
            ASSERT_FALSE(speed.details.empty());
            EXPECT_NE(speed.details[0].find("Technique.SameWork found timed samples drawn at random"), std::string::npos) << speed.details[0];
        }
    }
}

// What went wrong starts with the failure other tests wait on, and names the tests held back by it in one line.
TEST(Scoring, FeedbackPutsTheFailureOthersWaitOnFirstAndNamesWhatItHoldsBackInOneLine) {
    const nlohmann::json tiled = nlohmann::json::parse(R"({
      "lab": "00-x", "tests": [
        {"id": "Host.Works", "points": 5},
        {"id": "Tiled.MatchesOracle", "points": 20},
        {"id": "Technique.SharedMemoryTile", "points": 10, "requires": ["Tiled.MatchesOracle"]},
        {"id": "Sanitizer.NoErrors", "points": 0, "requires": ["Tiled.MatchesOracle"]},
        {"id": "Speed.TiledThroughput", "points": 10, "requires": ["Tiled.MatchesOracle", "Technique.SharedMemoryTile"]},
        {"id": "Report.Roofline", "points": 0, "requires": ["Tiled.MatchesOracle"]}
      ]})");
    SessionResult session;
    TestOutcome host = outcome("Host.Works", "failed"), wrong = outcome("Sizes/Tiled.MatchesOracle/n33", "failed");
    host.messages = {"the host part is wrong"};
    wrong.messages = {"cell (0, 32) is wrong: halo not loaded"};
    session.tests = {host, wrong, outcome("Sizes/Tiled.MatchesOracle/n32", "passed")};
    for (const char* id : {"Technique.SharedMemoryTile", "Sanitizer.NoErrors", "Speed.TiledThroughput", "Report.Roofline"}) {
        TestOutcome held = outcome(id, "skipped");
        held.properties["not_run_because"] = "not counted: Tiled.MatchesOracle did not pass";
        session.tests.push_back(held);
    }
    const LabScore lab = score_lab(tiled, session);
    ASSERT_EQ(lab.feedback.size(), 4u);
    // The failure to fix first, though lab.json lists another failure before it.
    EXPECT_EQ(lab.feedback[0].kind, Feedback::Kind::fix_first);
    EXPECT_EQ(lab.feedback[0].test, "Tiled.MatchesOracle");
    EXPECT_EQ(lab.feedback[0].text, find(lab, "Tiled.MatchesOracle").details);
    EXPECT_EQ(lab.feedback[0].waiting, (std::vector<std::string>{"Technique.SharedMemoryTile", "Sanitizer.NoErrors",
                                                                 "Speed.TiledThroughput", "Report.Roofline"}));
    EXPECT_EQ(lab.feedback[1].kind, Feedback::Kind::failure);
    EXPECT_EQ(lab.feedback[1].test, "Host.Works");
    // The four held back, in one line, and why once.
    EXPECT_EQ(lab.feedback[2].kind, Feedback::Kind::not_counted);
    EXPECT_EQ(lab.feedback[2].text, (std::vector<std::string>{"Not counted until Tiled.MatchesOracle passes: "
                                                              "Technique.SharedMemoryTile, Sanitizer.NoErrors, "
                                                              "Speed.TiledThroughput, Report.Roofline"}));
    EXPECT_EQ(lab.feedback[3].kind, Feedback::Kind::why_not_counted);
    EXPECT_EQ(lab.feedback[3].text, (std::vector<std::string>{
                                        "Speed and technique count only for code that is right first, so they were not run."}));
    // Each keeps its own verdict in the table.
    for (const char* id : {"Technique.SharedMemoryTile", "Sanitizer.NoErrors", "Speed.TiledThroughput", "Report.Roofline"})
        EXPECT_EQ(find(lab, id).verdict, "not counted") << id;
}

// With nothing held back, the failures stand in lab.json's order and nothing is said about tests not counted.
TEST(Scoring, FeedbackWithNothingHeldBackIsTheFailuresInOrder) {
    SessionResult session;
    session.tests = {outcome("Step.MatchesOracle/a", "passed"), outcome("Speed.Fast", "passed"),
                     outcome("Host.Works", "failed"), outcome("Kernels/Stability.PerKernel/naive", "failed")};
    const LabScore lab = score_lab(config(), session);
    ASSERT_EQ(lab.feedback.size(), 2u);
    EXPECT_EQ(lab.feedback[0].test, "Host.Works");
    EXPECT_EQ(lab.feedback[0].kind, Feedback::Kind::failure);
    EXPECT_EQ(lab.feedback[1].test, "Stability.PerKernel");
}

TEST(Scoring, ConfigAndGraderMustAgree) {
    SessionResult session;
    session.tests = {outcome("Step.MatchesOracle/a", "passed"), outcome("Extra.Test", "passed")};
    const LabScore lab = score_lab(config(), session);
    ASSERT_EQ(lab.problems.size(), 4u);  // Speed.Fast, Host.Works, Stability.PerKernel missing, Extra.Test unknown
}

}  // namespace
