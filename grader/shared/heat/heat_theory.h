// What FTCS theory promises of the heat scheme, judged on runs a lab made with its student's code, in 1, 2 or
// 3 dimensions alike:
//  - a stable run stays within its start's range (the maximum principle: each new value is a weighted average
//    of old ones);
//  - on insulated walls it keeps its heat, and it evens out as the oracle's run of the same start does (a run
//    that froze keeps its range and its heat too, so both checks also ask that it moved as it should);
//  - a single mode decays at the rate theory gives;
//  - just above the bound, the highest mode grows by |FTCS factor| each step.
// Each lab runs its student's code (integrate, or the kernels driven by the grader) and the oracle; these
// functions judge the outcome, record the figure and report with GoogleTest in words the dimension chooses.
#pragma once

#include "heat_dimension.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace heat_grading {

// The range of a field after a run, against its start's.
struct RangeCheck {
    double lo0 = 0, hi0 = 0;  // the start's range
    double lo = 0, hi = 0;    // the end's, over its finite values
    std::size_t outside = 0, nonfinite = 0;
    bool bounded() const { return outside == 0 && nonfinite == 0; }
    // "[0.5012, 1.9983]"
    std::string start_text(int digits = 4) const;
    std::string end_text(int digits = 4) const;
};
// `slack` widens the start's range for rounding.
template <typename T>
RangeCheck range_check(const std::vector<T>& start, const std::vector<T>& end, double slack);

// A long stable run on insulated walls (the rod's ends, the square's walls), made with the student's code from
// a start that already satisfies the walls.
struct InsulatedRun {
    Dimension dim;
    std::string kernel;  // "naive", "tiled": named in messages where the lab has several step kernels
    double r = 0;
    int steps = 0;
    std::vector<float> start, end;  // the interior cells, in the lab's order
    // The cells the maximum principle holds on: the interior, and the rod's two ghost ends (which the boundary
    // kernel sets to their neighbours: a wrong end shows there first). The square's corners are never written.
    std::vector<float> range_start, range_end;
    // The oracle's run of the same start: interior cells after all steps, and after one.
    std::vector<double> oracle_end, oracle_one_step;
    std::function<std::string(std::size_t)> cell_name;  // an interior index, as the handout names it: "(3, 4)"
    std::string thread_hint;  // what a thread that never updated its cell got wrong, in the lab's words
};

// Stability.MaximumPrinciple on insulated walls: the range, and that the run evolved (`evolution_tol`: how far
// the spread's shrink may be from the oracle's, relative).
void check_maximum_principle(const InsulatedRun& run, double slack, double evolution_tol);
// Stability.ConservesHeat: the interior's total heat drifts by at most `drift_tol` (relative), and the run evolved.
void check_conserves_heat(const InsulatedRun& run, double drift_tol, double evolution_tol);

// A single mode of the grid, run with the student's code: its amplitude against what theory predicts.
struct ModeDecay {
    std::string kernel;      // as in InsulatedRun
    std::string mode;        // "The mode cos(pi m (i-1/2)/N) with m = 3 on 64 cells"
    std::string law;         // "exp(-k (pi m / L)^2 t)", or "the FTCS factor 0.99 each step"
    std::string after;       // "after t = 0.01", "after 50 steps at r = 0.100"
    double measured = 0, predicted = 0, tol = 0;
    int neighbours = 2;      // 2d, for the advice
    // Where given: asked when the check fails; a non-empty answer (the kernel does not compute one step right yet)
    // is the failure instead, since then the cause is the kernel's formula or indexing, not the scheme.
    std::function<std::string()> not_right_yet;
};
// Stability.<...>DecayRate: |measured / predicted - 1| <= tol.
void check_mode_decay(const ModeDecay& decay);

// The highest mode of the grid, run with the student's kernels just above the bound.
struct Growth {
    Dimension dim;
    std::string kernel;  // as in InsulatedRun
    std::string mode;    // "the highest mode of the 30 x 20 square", "the highest mode (a checkerboard)"
    double r = 0, factor = 0, grown = 0, tol = 0;  // grown: the mode's amplitude over its start's
    int steps = 0;
    std::function<std::string()> not_right_yet;  // as in ModeDecay
};
// Stability.BlowsUpAboveBound / GrowsAboveBound: log|grown| within `tol` (relative) of steps * log|factor|.
void check_growth_above_bound(const Growth& growth);

// For a solve whose result is wrong: whether it stalled, its interior being the start's, or the start's after one
// step (a host loop that never swaps its buffers runs every step from the start); a sentence that says so, else "".
std::string stalled_solve_hint(const std::vector<float>& result, const std::vector<float>& start,
                               const std::vector<double>& oracle_one_step);

// The FTCS amplification factor of the mode whose phase per cell is theta[a] along each axis a:
// 1 - 4r (sin^2(theta_x/2) + ...).
double ftcs_factor(const std::vector<double>& theta, double r);

}  // namespace heat_grading
