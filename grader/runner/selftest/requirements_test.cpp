// check_requirement (--require): the reference and right/ and slow/ variants are held to CPU execution mode agreeing
// with the GPU's counters where both were measured (Report.AccessAnalysis's gpu_disagreements); wrong/ and cheats/
// are not; without a GPU, CPU mode's figures are held to the counters a GPU recorded for the solution (gpu_counters.json).
#include "exit_status.h"
#include "requirements.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace {

using gpulab::runner::check_requirement;
using gpulab::runner::IdScore;
using gpulab::runner::LabScore;
using gpulab::runner::Solution;

// A lab whose every test passed with full marks; Report.AccessAnalysis recorded `disagreements` (-1: nothing,
// as without a GPU), as gtest's JSON records a property: a string.
LabScore graded(int disagreements) {
    LabScore lab;
    IdScore ok;
    ok.id = "Stencil.MatchesOracle", ok.total = ok.passed = 1, ok.points = ok.max_points = 10;
    IdScore report;
    report.id = "Report.AccessAnalysis", report.total = report.passed = 1;
    if (disagreements >= 0) {
        report.properties["gpu_disagreements"] = std::to_string(disagreements);
        report.properties["gpu_disagreement_rows"] =
            "launch_stencil_tiled(double, 512 x 512 x 512): load use 54% / 53%, store use 67% / 67%, conflicts per "
            "shared load 0.88 / 2.03, per shared store 0.26 / 0.60 (CPU / GPU)";
    }
    lab.ids = {ok, report};
    lab.points = lab.max_points = 10;
    return lab;
}

Solution variant(const std::string& name) {
    Solution s;
    s.name = name;
    s.expect = testing::TempDir() + "requirements_test_expect.json";
    std::ofstream(s.expect) << R"({"must_fail": [], "may_fail": []})";
    return s;
}

TEST(Requirements, ReferenceAndRightAndSlowVariantsMustAgreeWithTheGpu) {
    testing::internal::CaptureStdout();
    EXPECT_EQ(check_requirement("full", graded(1), variant("reference")), gpulab::runner::kRequirementNotMet);
    EXPECT_EQ(check_requirement("expected", graded(2), variant("right/tiled-output-tile-block")),
              gpulab::runner::kRequirementNotMet);
    EXPECT_EQ(check_requirement("expected", graded(1), variant("slow/tile-too-big-for-two-blocks")),
              gpulab::runner::kRequirementNotMet);
    const std::string said = testing::internal::GetCapturedStdout();
    // The message names the test, how many launches, and the figures of each.
    EXPECT_NE(said.find("Report.AccessAnalysis"), std::string::npos) << said;
    EXPECT_NE(said.find("disagree on 2 launches"), std::string::npos) << said;
    EXPECT_NE(said.find("conflicts per shared load 0.88 / 2.03"), std::string::npos) << said;
}

TEST(Requirements, AgreementIsNotAskedOfWrongAndCheatsOrWithoutAGpu) {
    testing::internal::CaptureStdout();
    EXPECT_EQ(check_requirement("expected", graded(3), variant("wrong/off-by-one-boundary")), gpulab::runner::kGraded);
    EXPECT_EQ(check_requirement("expected", graded(3), variant("cheats/size-sniffing-naive-when-large")),
              gpulab::runner::kGraded);
    // Agreement, or no GPU profiled (no property): as before.
    EXPECT_EQ(check_requirement("full", graded(0), variant("reference")), gpulab::runner::kGraded);
    EXPECT_EQ(check_requirement("full", graded(-1), variant("reference")), gpulab::runner::kGraded);
    EXPECT_EQ(check_requirement("expected", graded(-1), variant("right/tiled-output-tile-block")),
              gpulab::runner::kGraded);
    EXPECT_EQ(check_requirement("expected", graded(0), variant("slow/tile-too-big-for-two-blocks")),
              gpulab::runner::kGraded);
    testing::internal::GetCapturedStdout();
}

// Without a GPU: CPU execution mode's figures (access_figures, as Report.AccessAnalysis records them) against the
// counters a GPU recorded for the solution. `load_use` is CPU mode's load sector use of lab 01's step.
LabScore graded_without_gpu(const std::string& load_use, const std::string& store_use = "0.80") {
    LabScore lab = graded(-1);
    lab.ids[1].properties["access_figures"] =
        R"({"Step M67108864": {"call": "launch_step at M = 67108864", "load_use": )" + load_use +
        R"(, "store_use": )" + store_use + R"(, "conflicts_per_load": 0, "conflicts_per_store": 0}})";
    return lab;
}
LabScore graded_without_gpu(double load_use) { return graded_without_gpu(std::to_string(load_use)); }

Solution recorded(const std::string& name) {
    Solution s = name == "reference" ? Solution{} : variant(name);
    s.name = name;
    s.recorded_gpu_counters = testing::TempDir() + "requirements_test_gpu_counters.json";
    std::ofstream(s.recorded_gpu_counters) << R"({"device": "NVIDIA H200", "commit": "abc1234",
      "recorded_apart": {"slow/tiny-blocks": {"device": "NVIDIA H100 80GB HBM3", "commit": "def5678"}}, "solutions": {
        "reference": {"Step M67108864": {"call": "launch_step at M = 67108864", "load_use": 0.86, "store_use": 0.80,
                                         "conflicts_per_load": 0, "conflicts_per_store": 0}},
        "slow/tiny-blocks": {"Step M67108864": {"load_use": 0.86, "store_use": 0.80, "conflicts_per_load": 0,
                                                "conflicts_per_store": 0},
                             "Step M1000": {"call": "launch_step at M = 1000", "load_use": 0.86, "store_use": 0.80}}}})";
    return s;
}

TEST(Requirements, WithoutAGpuTheFiguresMustAgreeWithTheCountersRecordedOnOne) {
    testing::internal::CaptureStdout();
    // The bug this exists for: a sample on pages no block touched gave 0% where the H200 counted 86%.
    EXPECT_EQ(check_requirement("full", graded_without_gpu(0.0), recorded("reference")),
              gpulab::runner::kRequirementNotMet);
    std::string said = testing::internal::GetCapturedStdout();
    EXPECT_NE(said.find("load use 0% / 86%"), std::string::npos) << said;
    EXPECT_NE(said.find("NVIDIA H200 at abc1234"), std::string::npos) << said;
    // Within 10 points: agreed, and said.
    testing::internal::CaptureStdout();
    EXPECT_EQ(check_requirement("full", graded_without_gpu(0.80), recorded("reference")), gpulab::runner::kGraded);
    said = testing::internal::GetCapturedStdout();
    EXPECT_NE(said.find("agree with the counters recorded"), std::string::npos) << said;
    // A recorded launch CPU mode did not analyse is a disagreement too.
    testing::internal::CaptureStdout();
    EXPECT_EQ(check_requirement("expected", graded_without_gpu(0.86), recorded("slow/tiny-blocks")),
              gpulab::runner::kRequirementNotMet);
    said = testing::internal::GetCapturedStdout();
    EXPECT_NE(said.find("launch_step at M = 1000: not analysed"), std::string::npos) << said;
    // A solution recorded apart (on another GPU, after the others) names where it was recorded.
    EXPECT_NE(said.find("NVIDIA H100 80GB HBM3 at def5678"), std::string::npos) << said;
    EXPECT_EQ(said.find("NVIDIA H200 at abc1234"), std::string::npos) << said;
}

// A figure CPU mode could not measure (null: its count stopped inside the only block it reached, so no warp request
// was whole) is shown as "?" and not compared; the launch's other figures still are.
TEST(Requirements, AFigureCpuModeCouldNotMeasureIsNotCompared) {
    testing::internal::CaptureStdout();
    EXPECT_EQ(check_requirement("counters", graded_without_gpu("null"), recorded("reference")), gpulab::runner::kGraded);
    EXPECT_EQ(check_requirement("counters", graded_without_gpu("null", "0.40"), recorded("reference")),
              gpulab::runner::kRequirementNotMet);
    const std::string said = testing::internal::GetCapturedStdout();
    EXPECT_NE(said.find("load use ? / 86%, store use 40% / 80%"), std::string::npos) << said;
}

TEST(Requirements, CountersAloneMustCompareSomething) {
    testing::internal::CaptureStdout();
    LabScore lab = graded_without_gpu(0.86);
    EXPECT_EQ(check_requirement("counters", lab, recorded("reference")), gpulab::runner::kGraded);
    EXPECT_EQ(check_requirement("counters", graded_without_gpu(0.5), recorded("reference")),
              gpulab::runner::kRequirementNotMet);
    // Nothing to compare (the report did not run, or nothing is recorded for the solution): not a pass.
    EXPECT_EQ(check_requirement("counters", graded(-1), recorded("reference")), gpulab::runner::kRequirementNotMet);
    EXPECT_EQ(check_requirement("counters", lab, recorded("right/not-recorded")), gpulab::runner::kRequirementNotMet);
    const std::string said = testing::internal::GetCapturedStdout();
    EXPECT_NE(said.find("nothing was held to a GPU's counters"), std::string::npos) << said;
}

TEST(Requirements, RecordedCountersAreNotAskedOfWrongOrOfSolutionsNotRecorded) {
    testing::internal::CaptureStdout();
    EXPECT_EQ(check_requirement("expected", graded_without_gpu(0.0), recorded("wrong/off-by-one-boundary")),
              gpulab::runner::kGraded);
    EXPECT_EQ(check_requirement("expected", graded_without_gpu(0.0), recorded("right/not-recorded")),
              gpulab::runner::kGraded);
    Solution none = variant("reference");
    none.name = "reference";
    EXPECT_EQ(check_requirement("full", graded_without_gpu(0.0), none), gpulab::runner::kGraded);
    testing::internal::GetCapturedStdout();
}

}  // namespace
