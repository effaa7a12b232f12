// check_requirement (--require): the reference and right/ and slow/ variants are held to CPU execution mode agreeing
// with the GPU's counters where both were measured (Report.AccessAnalysis's gpu_disagreements); wrong/ and cheats/
// are not; without a GPU (no such property) nothing changes.
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

}  // namespace
