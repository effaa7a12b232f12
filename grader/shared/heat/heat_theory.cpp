#include "heat_theory.h"

#include "gpulab/compare.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>
#include <sstream>

namespace heat_grading {

using gpulab::fixed;
using gpulab::num;
using gpulab::sci;

namespace {

// "With the tiled kernel the temperatures" / "The temperatures": a run named by its kernel where the lab has
// several, the sentence's first word capitalised either way.
std::string with_kernel(const std::string& kernel, const std::string& rest) {
    if (kernel.empty()) {
        std::string text = rest;
        text[0] = char(std::toupper(static_cast<unsigned char>(text[0])));
        return text;
    }
    return "With the " + kernel + " kernel " + rest;
}

// The variance of the cells about their mean: how uneven the temperatures are.
template <typename T>
double spread(const std::vector<T>& f) {
    const double mean = std::accumulate(f.begin(), f.end(), 0.0, [](double s, T v) { return s + double(v); }) / double(f.size());
    double sum = 0;
    for (T v : f) sum += (double(v) - mean) * (double(v) - mean);
    return sum / double(f.size());
}

// A run that froze keeps its range and its heat, so the maximum principle and the conservation of heat alone
// pass it. So the run must also have evolved as the oracle's run of the same start did: heat evens out, and the
// spread of the temperatures (their variance) shrinks by the oracle's factor. Returns "" when it did, else what
// went wrong, as precisely as the result allows; fills the measured and the expected shrink.
std::string evolution_problem(const InsulatedRun& run, double tol, double* shrink, double* expected_shrink) {
    const double spread0 = spread(run.start);
    *expected_shrink = spread(run.oracle_end) / spread0;
    *shrink = spread(run.end) / spread0;
    if (!std::isfinite(*shrink) || std::fabs(*shrink / *expected_shrink - 1.0) <= tol) return "";  // NaN: said elsewhere
    const std::string steps = std::to_string(run.steps);
    std::ostringstream out;
    out << with_kernel(run.kernel, "the temperatures did not even out as they should: after ") << steps
        << " steps at r = " << fixed(run.r, 2) << " the spread of the interior (its variance) should have shrunk to "
        << sci(*expected_shrink) << " of its start, as in the oracle's run of the same start, but yours is "
        << sci(*shrink) << " of it (allowed: within " << fixed(100 * tol, 0) << "%). ";
    const std::size_t cells = run.start.size();
    std::size_t frozen = 0, first_frozen = 0;
    for (std::size_t c = 0; c < cells; ++c)
        if (gpulab::same_bits(run.end[c], run.start[c]) && frozen++ == 0) first_frozen = c;
    if (frozen == cells)
        out << "In fact the interior is exactly the start: nothing moved. Does integrate run its " << steps
            << " steps, swap the two buffers after each, and copy back the buffer that holds the last step (after "
               "the swap, the one the next step would read)?";
    else if (gpulab::relative_l2_error(run.end, run.oracle_one_step) < 1e-5)
        out << "In fact the field after " << steps << " steps looks like the field after 1 step: every step "
            << "started again from the initial field. Does your host loop swap the two buffers after each step "
               "(std::swap(d_a, d_b)), so that the next step reads what this one wrote?";
    else if (frozen * 100 >= cells)
        out << frozen << " of the " << cells << " interior cells (the first: cell " << run.cell_name(first_frozen)
            << ") still hold their start value bit for bit, so the step never updated them. " << run.thread_hint;
    else
        out << "Check the number of steps integrate runs, the r it passes to the kernel, that each step reads "
               "the previous step's result, and that the boundary kernel runs on the buffer the step just wrote.";
    return out.str();
}

}  // namespace

std::string RangeCheck::start_text(int digits) const { return "[" + fixed(lo0, digits) + ", " + fixed(hi0, digits) + "]"; }
std::string RangeCheck::end_text(int digits) const { return "[" + fixed(lo, digits) + ", " + fixed(hi, digits) + "]"; }

template <typename T>
RangeCheck range_check(const std::vector<T>& start, const std::vector<T>& end, double slack) {
    RangeCheck range;
    const auto [lo0, hi0] = std::minmax_element(start.begin(), start.end());
    range.lo0 = double(*lo0), range.hi0 = double(*hi0);
    range.lo = INFINITY, range.hi = -INFINITY;
    for (T v : end) {
        if (!std::isfinite(double(v))) {
            ++range.nonfinite;
            continue;
        }
        range.lo = std::min(range.lo, double(v));
        range.hi = std::max(range.hi, double(v));
        range.outside += double(v) < range.lo0 - slack || double(v) > range.hi0 + slack;
    }
    return range;
}

template RangeCheck range_check(const std::vector<float>&, const std::vector<float>&, double);
template RangeCheck range_check(const std::vector<double>&, const std::vector<double>&, double);

void check_maximum_principle(const InsulatedRun& run, double slack, double evolution_tol) {
    const RangeCheck range = range_check(run.range_start, run.range_end, slack);
    double shrink = 0, expected_shrink = 0;
    const std::string frozen = evolution_problem(run, evolution_tol, &shrink, &expected_shrink);
    gpulab::record_figure("range " + range.end_text() + ", spread x" + sci(shrink),
                          "within " + range.start_text() + ", spread x" + sci(expected_shrink));
    GPULAB_EXPECT(frozen.empty()) << frozen << " (A field that does not change never leaves its range either, so "
                                     "this test also checks that it changed as it should.)";
    const std::string bound = run.dim.bound_text();
    GPULAB_EXPECT(range.bounded())
        << "After a long run at r = " << run.dim.ratio_text(run.r) << (run.kernel.empty() ? "" : " with the " + run.kernel + " kernel")
        << " the temperatures span " << range.end_text(6) << ", outside the starting range " << range.start_text(6)
        << (range.nonfinite ? " (" + std::to_string(range.nonfinite) + " cell(s) not even finite)" : std::string())
        << ". With r <= " << bound << " every new value is a weighted average of old ones " << run.dim.weights_text()
        << ", so it can never leave that range: check the formula, the neighbours you read, and the boundary kernel.";
}

void check_conserves_heat(const InsulatedRun& run, double drift_tol, double evolution_tol) {
    const auto heat = [](const std::vector<float>& f) {
        return std::accumulate(f.begin(), f.end(), 0.0, [](double sum, float v) { return sum + v; });
    };
    const double before = heat(run.start), after = heat(run.end);
    const double drift = std::fabs(after - before) / before;
    double shrink = 0, expected_shrink = 0;
    const std::string frozen = evolution_problem(run, evolution_tol, &shrink, &expected_shrink);
    gpulab::record_figure("heat drift " + sci(drift) + ", spread x" + sci(shrink),
                          "<= " + sci(drift_tol, 0) + ", spread x" + sci(expected_shrink));
    GPULAB_EXPECT(frozen.empty()) << frozen << " (A field that does not change keeps its heat too, so this test "
                                     "also checks that it changed as it should.)";
    const bool rod = run.dim.d == 1;
    GPULAB_EXPECT(drift <= drift_tol)
        << with_kernel(run.kernel, "the total heat of the interior changed from ") << num(before) << " to " << num(after)
        << " (relative " << sci(drift) << "). An insulated " << run.dim.domain() << " keeps its heat: no heat flows "
        << "through " << (rod ? "an end" : "a wall") << " whose ghost cells equal their interior neighbours. Check the "
        << "boundary kernel (" << (rod ? "both ends" : "every wall") << ") and that it runs after every step, on the "
        << "buffer the step just wrote.";
}

void check_mode_decay(const ModeDecay& decay) {
    const double rel = std::fabs(decay.measured / decay.predicted - 1.0);
    gpulab::record_figure("amplitude x" + sci(decay.measured, 4) + " (predicted x" + sci(decay.predicted, 4) + ")",
                          "rel err <= " + sci(decay.tol, 0));
    const bool holds = std::isfinite(decay.measured) && rel <= decay.tol;
    if (!holds && decay.not_right_yet)
        if (const std::string why = decay.not_right_yet(); !why.empty()) return void(ADD_FAILURE() << why);
    GPULAB_EXPECT(holds)
        << decay.mode << " should decay by " << decay.law << ": x" << sci(decay.predicted, 4) << " " << decay.after
        << ". " << with_kernel(decay.kernel, "it went x") << sci(decay.measured, 4) << " (relative error " << sci(rel)
        << ", allowed " << sci(decay.tol, 0) << "). "
        << (decay.measured > decay.predicted
                ? "It decays too slowly: are all " + std::to_string(decay.neighbours) +
                      " neighbours weighted by r, and is r the one the step was given?"
                : std::string("It decays too fast: is a neighbour counted twice, and does each step read the previous "
                              "step's whole field?"));
}

void check_growth_above_bound(const Growth& growth) {
    const double expected_log = growth.steps * std::log(std::fabs(growth.factor));
    const double measured = std::fabs(growth.grown);
    const double rel = std::fabs(std::log(measured) / expected_log - 1.0);
    gpulab::record_figure("grew x" + sci(measured, 3) + ", FTCS predicts x" + sci(std::exp(expected_log), 3),
                          "log growth within " + fixed(100 * growth.tol, 0) + "%");
    const bool holds = std::isfinite(measured) && measured > 1 && rel <= growth.tol;
    if (!holds && growth.not_right_yet)
        if (const std::string why = growth.not_right_yet(); !why.empty()) return void(ADD_FAILURE() << why);
    GPULAB_EXPECT(holds)
        << "Just above the stability bound (r = " << fixed(growth.r, 3) << " > " << growth.dim.bound_text() << ") FTCS "
        << "amplifies " << growth.mode << " by |1 - 4r (sin^2(theta_x/2) + ...)| = " << fixed(std::fabs(growth.factor), 5)
        << " each step: x" << sci(std::exp(expected_log), 3) << " after " << growth.steps << " steps. "
        << with_kernel(growth.kernel, "it grew x") << sci(measured, 3)
        << ". FTCS is unstable there by theory: a kernel that damps this mode is not computing the stencil it was "
           "given (check the weights); one that grows it faster reads wrong neighbours.";
}

std::string stalled_solve_hint(const std::vector<float>& result, const std::vector<float>& start,
                               const std::vector<double>& oracle_one_step) {
    if (std::equal(result.begin(), result.end(), start.begin(), gpulab::same_bits<float>))
        return "  Your result is exactly the start: nothing moved. Does integrate copy back the buffer that holds "
               "the last step?\n";
    if (gpulab::relative_l2_error(result, oracle_one_step) < 1e-5)
        return "  Your result is the start after 1 step: every step started again from the initial field. Does "
               "your host loop swap the two buffers after each step, so that the next step reads what this one "
               "wrote?\n";
    return "";
}

double ftcs_factor(const std::vector<double>& theta, double r) {
    double sum = 0;
    for (double t : theta) sum += std::sin(t / 2) * std::sin(t / 2);
    return 1.0 - 4.0 * r * sum;
}

}  // namespace heat_grading
