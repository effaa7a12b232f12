// Points follow the config: shared by instances, "not run" without a GPU, and speed gated on correctness.
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
        {"id": "Host.Works", "points": 5}
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

TEST(Scoring, InstancesShareTheirIdsPoints) {
    SessionResult session;
    session.tests = {outcome("Step.MatchesOracle/a", "passed"), outcome("Step.MatchesOracle/b", "failed"),
                     outcome("Speed.Fast", "passed"), outcome("Host.Works", "passed")};
    const LabScore lab = score_lab(config(), session);
    EXPECT_DOUBLE_EQ(find(lab, "Step.MatchesOracle").points, 10);
    EXPECT_EQ(find(lab, "Step.MatchesOracle").verdict, "1/2 failed");
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
    EXPECT_DOUBLE_EQ(lab.points_not_run, 30);
    EXPECT_EQ(find(lab, "Speed.Fast").verdict, "not run");
}

TEST(Scoring, ConfigAndGraderMustAgree) {
    SessionResult session;
    session.tests = {outcome("Step.MatchesOracle/a", "passed"), outcome("Extra.Test", "passed")};
    const LabScore lab = score_lab(config(), session);
    ASSERT_EQ(lab.problems.size(), 3u);  // Speed.Fast and Host.Works missing, Extra.Test unknown
}

}  // namespace
