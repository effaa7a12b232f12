// The time step of an FTCS heat lab: does the student's choose_dt pick a stable, not needlessly small step
// that divides tmax into whole steps, does integrate refuse an unstable one, and what a solve's step count
// must be. Shared by the rod, the square and the box; the dimension words the bound.
#pragma once

#include "heat_dimension.h"

#include "gpulab/lab_config.h"

#include <functional>
#include <string>
#include <vector>

namespace heat_grading {

// Stability.ChosenDtIsStable: for each case [k, h, tmax] of `stability`.choose_dt_cases, r = k dt / h^2 with
// dt = choose_dt(k, h, tmax) must lie within stability.min_r <= r <= the bound (+1e-12 for rounding), and
// tmax / dt must be a whole number. `spacing` is what the lab's handout calls h ("dx"). Records the figure and
// reports with GoogleTest.
void check_chosen_dt(const Dimension& dim, const gpulab::Json& stability, const std::string& spacing,
                     const std::function<double(double k, double h, double tmax)>& choose_dt);

// Stability.RefusesUnstableDt: for each r of `ratios`, integrate(dt) with dt = r * h^2/k (`dt_per_r` = h^2/k)
// on the host array `f` must throw std::invalid_argument with a message before anything runs: f must come back
// bit for bit. `call` names the call for the student ("integrate(..., tiled)").
void check_refuses_unstable_dt(const Dimension& dim, const std::vector<float>& f, const gpulab::Json& ratios,
                               double dt_per_r, const std::string& call, const std::function<void(double dt)>& integrate);

// For a solve whose tmax is not a whole number of the largest stable steps (`exact_steps` of them),
// what the step count must be and why; "" when it is whole. `limit` names the stable step for the
// student, e.g. "dx^2 / 2k".
std::string uneven_step_count_hint(double tmax, double exact_steps, int expected_steps, const std::string& limit);

}  // namespace heat_grading
