// Lab 04's heat solver, its host code: a stable time step, refusing an unstable one, and a whole solve against the
// oracle (Stability.ChosenDtIsStable, Stability.RefusesUnstableDt, Solve.MatchesOracle).
#pragma once

#include "stencil_check.h"

#include <string>
#include <vector>

namespace stencil3d_grading {

struct SolveParam {
    std::string name;  // lab.json's solve case
    int kernel;        // 0 naive, 1 tiled
    Precision precision;
};

void check_chosen_dt();
void check_refuses_unstable_dt();
std::vector<SolveParam> solve_params();  // every case of lab.json's solve.cases, with each kernel and precision
std::string solve_case_name(const SolveParam& param);  // "hot_cube_tiled_f32"
void check_solve(const SolveParam& param);

}  // namespace stencil3d_grading
