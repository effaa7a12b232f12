// Lab 01's kernels, one launch each on guarded buffers: does the step kernel compute the oracle's FTCS step
// (Step.MatchesOracle), write only the interior of `out` (StepScope.TouchesOnlyTheInterior), and does the
// boundary kernel mirror the ends (Boundary.InsulatedEnds)? Reports failures with GoogleTest.
#pragma once

#include "step_cases.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace heat_rod_grading {

using StepCase = heat_grading::StepCase<int>;  // M cells, r
std::vector<StepCase> step_cases();
std::string step_case_name(const testing::TestParamInfo<StepCase>& info);  // "M33_r0p25"
std::vector<int> sizes_of(const char* section_name);  // lab.json <section>.sizes
std::string size_name(const testing::TestParamInfo<int>& info);  // "M33"

void check_step(const StepCase& c);
void check_step_scope(int M);
void check_boundary(int M);

}  // namespace heat_rod_grading
