// A crash or a hang must cost exactly one test: the rest still run and count.
#include "scoring.h"
#include "test_session.h"

#include "gpulab/lab_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

namespace {

using namespace gpulab::runner;

TEST(Session, EachMisbehavingTestCostsOnlyItself) {
    const auto work = std::filesystem::temp_directory_path() / ("gpulab-session-" + std::to_string(::getpid()));
    SessionSpec spec{FAKE_LAB_GRADER, FAKE_LAB_CONFIG, "", "", {}, work.string(), "123", ""};
    const SessionResult result = run_session(spec);
    ASSERT_TRUE(result.error.empty()) << result.error;

    std::map<std::string, std::string> verdict;
    for (const TestOutcome& t : result.tests) verdict[t.name] = t.result;
    EXPECT_EQ(verdict["Fake.Passes"], "passed");
    EXPECT_EQ(verdict["Fake.Fails"], "failed");
    EXPECT_EQ(verdict["Fake.Segfaults"], "crashed");
    EXPECT_EQ(verdict["Fake.Hangs"], "timeout");
    EXPECT_EQ(verdict["Fake.RunsAfterTheCrash"], "passed");
    EXPECT_EQ(verdict["Fake.ThrowsTodo"], "failed");
    EXPECT_TRUE(verdict["Fake.NeedsGpu"] == "skipped" || verdict["Fake.NeedsGpu"] == "passed");
    EXPECT_EQ(verdict["Twice/FakeHang.EveryInstance/0"], "timeout");
    EXPECT_EQ(verdict["Twice/FakeHang.EveryInstance/1"], "timeout");
    EXPECT_GE(result.processes, 3) << "a crash and a hang each need a fresh process";
    EXPECT_LE(result.processes, 4) << "the second instance of a hanging test must not get a process of its own";
    EXPECT_EQ(result.seed, "123");

    const LabScore score = score_lab(gpulab::load_json_file(FAKE_LAB_CONFIG), result);
    std::map<std::string, IdScore> by_id;
    for (const IdScore& s : score.ids) by_id[s.id] = s;
    EXPECT_EQ(by_id["Fake.Passes"].points, 10);
    EXPECT_EQ(by_id["Fake.Passes"].measured, "42");
    EXPECT_EQ(by_id["Fake.Segfaults"].verdict, "crashed");
    EXPECT_EQ(by_id["Fake.Hangs"].verdict, "timed out");
    EXPECT_NE(by_id["Fake.Hangs"].details.front().find("(3 s)"), std::string::npos) << by_id["Fake.Hangs"].details.front();
    EXPECT_EQ(by_id["Fake.ThrowsTodo"].verdict, "not written yet");
    EXPECT_EQ(by_id["Fake.RunsAfterTheCrash"].points, 10);
    // What a student reads: the TODO itself, not GoogleTest's wrapping of the exception.
    ASSERT_FALSE(by_id["Fake.ThrowsTodo"].details.empty());
    const std::string todo = by_id["Fake.ThrowsTodo"].details.front();
    EXPECT_NE(todo.find("TODO(lab-0) step 1: not written yet"), std::string::npos) << todo;
    EXPECT_EQ(todo.find("thrown in the test body"), std::string::npos) << todo;
    std::filesystem::remove_all(work);
}

// A planted endless loop's short limit (test_timeout_s in its spec) is for the tests it breaks: a test it leaves
// alone keeps the lab's limit, so a slow moment on a shared GPU cannot time out a test the bug has nothing to do with.
TEST(Session, ShortLimitOnlyForTheTestsItNames) {
    const auto work = std::filesystem::temp_directory_path() / ("gpulab-session-limit-" + std::to_string(::getpid()));
    SessionSpec spec{FAKE_LAB_GRADER, FAKE_LAB_CONFIG, "", "", {}, work.string(), "123", "Fake.Hangs:Twice/FakeHang.*"};
    spec.test_timeout_s = 1;
    spec.test_timeout_ids = {"Fake.Hangs"};
    const SessionResult result = run_session(spec);
    ASSERT_TRUE(result.error.empty()) << result.error;
    std::map<std::string, TestOutcome> by_name;
    for (const TestOutcome& t : result.tests) by_name[t.name] = t;
    const auto limit_said = [&](const std::string& name) {
        const TestOutcome& t = by_name[name];
        return t.result + ": " + (t.messages.empty() ? std::string() : t.messages.front());
    };
    EXPECT_NE(limit_said("Fake.Hangs").find("timeout: The test did not finish within its time limit (1 s)"), std::string::npos)
        << limit_said("Fake.Hangs");
    EXPECT_NE(limit_said("Twice/FakeHang.EveryInstance/0").find("timeout: The test did not finish within its time limit (3 s)"),
              std::string::npos) << limit_said("Twice/FakeHang.EveryInstance/0");
    std::filesystem::remove_all(work);
}

}  // namespace
