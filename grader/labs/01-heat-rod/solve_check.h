// Solve.MatchesOracle: the student's host code (choose_dt, integrate, solve) run to tmax from each start of
// lab.json's "solve" section, against the oracle's run with the handout's step count.
#pragma once

#include <string>
#include <vector>

namespace heat_rod_grading {

// Every object in lab.json's "solve" section, by its name ("gaussian" is the handout's start; the others
// start from random temperatures).
std::vector<std::string> solve_case_names();
void check_solve(const std::string& name);

}  // namespace heat_rod_grading
