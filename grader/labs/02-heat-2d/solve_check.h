// Solve.MatchesOracle: the student's host code (choose_dt, integrate, solve) run to tmax from each start of
// lab.json's "solve" section with each step kernel, against the oracle's run with the handout's step count.
// The handout's start is also what Report.Snapshots draws.
#pragma once

#include "square_grading.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace heat_2d_grading {

struct SolveCase {
    std::string name;
    Grid g;
    double k, h, tmax;
    std::vector<double> start;
};
// The object of that name in lab.json's "solve" section ("gaussian" is the handout's start; the others start
// from random temperatures).
SolveCase solve_case(const std::string& name);

struct SolveParam {
    std::string start;
    int kernel;
};
std::vector<SolveParam> solve_params();  // every start x both kernels
std::string solve_param_name(const testing::TestParamInfo<SolveParam>& info);  // "gaussian_tiled"
void check_solve(const SolveParam& param);

// The relative L2 error over every cell but the four corners (nothing in the lab writes them, so
// whatever integrate's buffers held there does not count).
double rel_l2_without_corners(const std::vector<float>& f, const std::vector<double>& expected, const Grid& g);

}  // namespace heat_2d_grading
