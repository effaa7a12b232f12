// Checks shared by the time-stepping labs (FTCS in 1D, 2D, ...): does the student's choose_dt pick a
// stable, not needlessly small time step that divides tmax into whole steps?
#pragma once

#include "gpulab/lab_config.h"

#include <functional>
#include <string>
#include <vector>

namespace gpulab {

struct ChosenDtCheck {
    std::string problems;    // one line per failing case, empty when all pass
    double largest_r = 0;    // over all cases, for the grade table
};

// For each case [k, h, tmax] of `cases`, calls choose_dt(k, h, tmax) and checks min_r <= r <= bound
// (+1e-12 for rounding) with r = k dt / h^2, and that tmax / dt is a whole number. `spacing` is what the
// lab's handout calls h ("dx"); `bound_text` names the bound ("1/2"); `hint(r)` may add a sentence for
// an unstable r (e.g. "that is the 1D bound").
ChosenDtCheck check_chosen_dt(const Json& cases, const std::string& spacing, double bound, const std::string& bound_text,
                              double min_r,
                              const std::function<double(double, double, double)>& choose_dt,
                              const std::function<std::string(double)>& hint = {});

// The body of Stability.RefusesUnstableDt: for each r of `ratios`, calls integrate(dt) with dt = r * h^2/k
// (`dt_per_r` = h^2/k) on the host array `f` and expects std::invalid_argument with a message, before
// anything runs: f must come back bit for bit. Reports with GoogleTest. `call` names the call for the
// student ("integrate(..., tiled)"), `bound_text` the bound ("1/4"); `hint(r)` may add a sentence to an
// accepted request (e.g. "Checking against the rod's 1/2?").
void expect_refuses_unstable_dt(const std::vector<float>& f, const Json& ratios, double dt_per_r, const std::string& call,
                                const std::string& bound_text, const std::function<void(double dt)>& integrate,
                                const std::function<std::string(double)>& hint = {});

// For a solve whose tmax is not a whole number of the largest stable steps (`exact_steps` of them),
// what the step count must be and why; "" when it is whole. `limit` names the stable step for the
// student, e.g. "dx^2 / 2k".
std::string uneven_step_count_hint(double tmax, double exact_steps, int expected_steps, const std::string& limit);

}  // namespace gpulab
