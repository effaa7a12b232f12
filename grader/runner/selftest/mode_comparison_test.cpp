// compare_modes (--compare-modes): which rows make the verdict, and what each row says.
#include "exit_status.h"
#include "mode_comparison.h"

#include <gtest/gtest.h>

#include <sstream>

namespace {

using gpulab::runner::IdScore;
using gpulab::runner::LabScore;

// A test id as scoring gives it: ran and passed, ran and failed, or every instance skipped ("not run").
IdScore outcome(const std::string& id, const std::string& verdict) {
    IdScore s;
    s.id = id;
    s.total = 1;
    if (verdict == "pass") s.passed = 1;
    else if (verdict == "fail") s.failed = 1;
    else s.skipped = 1;
    return s;
}

LabScore lab(std::initializer_list<IdScore> ids) {
    LabScore score;
    score.ids = ids;
    return score;
}

std::string row_of(const std::string& table, const std::string& id) {
    std::istringstream lines(table);
    for (std::string line; std::getline(lines, line);)
        if (line.find(" " + id + " ") != std::string::npos) return line;
    return "";
}

TEST(ModeComparison, SameVerdictsAgreeAndADifferentOneFails) {
    std::ostringstream same, different;
    EXPECT_EQ(compare_modes(same, lab({outcome("A.Pass", "pass"), outcome("B.Fail", "fail")}),
                            lab({outcome("A.Pass", "pass"), outcome("B.Fail", "fail")}), {}),
              gpulab::runner::kGraded);
    EXPECT_EQ(compare_modes(different, lab({outcome("A.Pass", "pass")}), lab({outcome("A.Pass", "fail")}), {}),
              gpulab::runner::kRequirementNotMet);
    EXPECT_NE(row_of(different.str(), "A.Pass").find("DIFFERENT"), std::string::npos) << different.str();
}

TEST(ModeComparison, AMayFailTestMayDiffer) {
    std::ostringstream out;
    EXPECT_EQ(compare_modes(out, lab({outcome("Racy.Test", "pass")}), lab({outcome("Racy.Test", "fail")}), {"Racy.Test"}),
              gpulab::runner::kGraded);
    EXPECT_NE(row_of(out.str(), "Racy.Test").find("allowed"), std::string::npos) << out.str();
}

// A test run in CPU execution mode by the GPU grading is left out of the CPU grading: its row says it was graded
// once; a test the CPU grading did not run for any other reason gets no such note, and neither makes a verdict.
TEST(ModeComparison, ATestGradedOnceInCpuModeIsExplainedNotCompared) {
    std::ostringstream out;
    EXPECT_EQ(compare_modes(out, lab({outcome("Technique.Reads", "fail"), outcome("Sanitizer.NoErrors", "pass")}),
                            lab({outcome("Technique.Reads", "skipped"), outcome("Sanitizer.NoErrors", "skipped")}), {},
                            {"Technique.Reads"}),
              gpulab::runner::kGraded);
    EXPECT_NE(row_of(out.str(), "Technique.Reads").find("one grading"), std::string::npos) << out.str();
    EXPECT_EQ(row_of(out.str(), "Sanitizer.NoErrors").find("one grading"), std::string::npos) << out.str();
}

}  // namespace
