// Lab 02's kernels, one launch each on guarded buffers: does each step kernel compute the oracle's FTCS step
// (NaiveStep / TiledStep.MatchesOracle, with a 2D reading of where the wrong cells are), write only the interior
// of `out` (StepScope.TouchesOnlyTheInterior), and does the boundary kernel mirror the walls and leave the
// corners alone (Boundary.InsulatedWalls)? Reports failures with GoogleTest.
#pragma once

#include "square_grading.h"

#include "step_cases.h"

#include "gpulab/launch_geometry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace heat_2d_grading {

using StepCase = heat_grading::StepCase<Grid>;
std::vector<StepCase> step_cases();
std::string step_case_name(const testing::TestParamInfo<StepCase>& info);  // "129x65_r0p25"
void check_step(int kernel, const StepCase& c);
// Both step kernels at the timed size, checked in a dry run: instances of their MatchesOracle.
std::vector<gpulab::GeometryCheck> timed_geometry_checks();

struct ScopeCase {
    int kernel;
    Grid g;
};
std::vector<ScopeCase> scope_cases();  // both kernels x lab.json scope.sizes
std::string scope_case_name(const testing::TestParamInfo<ScopeCase>& info);  // "tiled_33x17"
void check_step_scope(const ScopeCase& c);

std::string grid_name(const testing::TestParamInfo<Grid>& info);  // "33x17"
void check_boundary(const Grid& g);

}  // namespace heat_2d_grading
