// The grader of lab 01 (heat in a 1D rod). Points, sizes and tolerances come from
// labs/01-heat-rod/lab.json; the handout describes every test by the same name.
#include "api.h"
#include "oracle.h"

#include "gpulab/launch_geometry.h"
#include "gpulab/compare.h"
#include "gpulab/cuda_check.h"
#include "gpulab/expert.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/lab_config.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/random.h"
#include "gpulab/roofline.h"
#include "gpulab/speed_report.h"
#include "gpulab/time_step_checks.h"
#include "gpulab/timed_field.h"
#include "gpulab/timing.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>

namespace {

using gpulab::config_at;
using gpulab::fixed;
using gpulab::num;
using gpulab::first_difference;
using gpulab::same_bits;
using gpulab::sci;
using gpulab::GuardedDeviceArray;
using gpulab::Json;
namespace oracle = heat_rod_oracle;

const char* const kLab = "01-heat-rod";

const HeatRodApi& student() { return gpulab::lab_api<HeatRodApi>(gpulab::Role::student, kLab); }
const HeatRodApi& reference() { return gpulab::lab_api<HeatRodApi>(gpulab::Role::reference, kLab); }
const Json& section(const char* name) { return config_at(gpulab::lab_config(), name); }




// Random temperatures, nonzero everywhere (a missing neighbour read as 0 must show).
std::vector<float> random_rod(gpulab::Rng& rng, int M) { return rng.uniform_floats(std::size_t(M), 0.5f, 2.0f); }

// ---- Step -----------------------------------------------------------------------------------------

struct StepCase {
    int M;
    double r;
};

std::vector<StepCase> step_cases() {
    std::vector<StepCase> cases;
    for (int M : section("step").at("sizes"))
        for (double r : section("step").at("ratios")) cases.push_back({M, r});
    return cases;
}

std::vector<int> sizes_of(const char* name) { return section(name).at("sizes").get<std::vector<int>>(); }

class Step : public testing::TestWithParam<StepCase> {};
class StepScope : public testing::TestWithParam<int> {};

TEST_P(Step, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    const auto [M, r_wanted] = GetParam();
    const float r = float(r_wanted);
    const gpulab::Tolerance tol{section("step").at("rel_tol"), section("step").at("abs_tol")};
    // The step must change some cell by far more than the tolerance, or a kernel that copies its
    // input would pass. With one or two interior cells a random draw can be nearly flat (about 1 in
    // 70 at M = 3), so draw again until it is not: deterministic for a given seed, never a flake.
    auto rng = gpulab::Rng::for_current_test();
    std::vector<float> in;
    std::vector<double> expected;
    for (int attempt = 0;; ++attempt) {
        GPULAB_ASSERT(attempt < 1000) << "grader error: cannot draw an input the step visibly changes";
        in = random_rod(rng, M);
        expected = oracle::step(oracle::widen(in), double(r));
        double largest_change = 0;
        for (int i = 1; i + 1 < M; ++i) largest_change = std::max(largest_change, std::fabs(expected[i] - in[i]));
        if (largest_change > 100 * tol.allowed(2.0)) break;
    }
    GuardedDeviceArray<float> d_in(M), d_out(M);
    d_in.upload(in);

    student().launch_step(d_in.data(), d_out.data(), M, r);
    gpulab::check_student_launch("launch_step");

    const std::vector<float> out = d_out.download();
    const std::vector<float> interior(out.begin() + 1, out.end() - 1);
    const std::vector<double> expected_interior(expected.begin() + 1, expected.end() - 1);
    gpulab::Shape shape;
    shape.nx = std::size_t(M - 2);
    shape.origin_x = 1;
    const gpulab::Comparison result = gpulab::compare(interior, expected_interior, shape, tol);
    gpulab::record_figure(result.figure(), "per cell " + sci(tol.abs, 0) + " + " + sci(tol.rel, 0) + "|f|");
    GPULAB_EXPECT(result.ok()) << result.explain("launch_step(M=" + std::to_string(M) + ", r=" + fixed(r, 2) + ")");
}

TEST_P(StepScope, TouchesOnlyTheInterior) {
    GPULAB_REQUIRE_DEVICE();
    const int M = GetParam();
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> in = random_rod(rng, M);
    GuardedDeviceArray<float> d_in(M), d_out(M);
    d_in.upload(in);

    student().launch_step(d_in.data(), d_out.data(), M, 0.25f);
    gpulab::check_student_launch("launch_step");

    const std::vector<float> out = d_out.download();
    const auto unwritten = std::count_if(out.begin() + 1, out.end() - 1, [](float v) { return gpulab::is_poison(v); });
    GPULAB_ASSERT(unwritten == 0) << "launch_step left " << unwritten << " of the " << M - 2
                                  << " interior cells unwritten. This test checks what else the step kernel "
                                     "touches, so it can only pass once the kernel writes every interior cell.";
    std::size_t changed = 0;
    const long first = first_difference(d_in.download(), in, &changed);
    GPULAB_EXPECT(changed == 0) << "launch_step changed its INPUT array at " << changed << " cell(s), first at cell "
                           << first << ". The step must be out-of-place: read only `in`, write only `out`. "
                           << "Updating one array in place races: a block can read a neighbour that another "
                              "block has already overwritten, and __syncthreads() cannot order different blocks.";
    GPULAB_EXPECT(gpulab::is_poison(out.front()))
        << "launch_step wrote out[0] = " << num(out.front()) << ": cells 0 and M-1 belong to the boundary kernel.";
    GPULAB_EXPECT(gpulab::is_poison(out.back()))
        << "launch_step wrote out[M-1] = " << num(out.back()) << ": cells 0 and M-1 belong to the boundary kernel.";
    for (const auto* array : {&d_in, &d_out}) {
        const gpulab::GuardReport guards = array->check_guards();
        GPULAB_EXPECT(guards.intact()) << "launch_step(M=" << M << "): "
                                     << guards.describe(array == &d_in ? "the input array" : "the output array");
    }
    gpulab::record_figure(changed == 0 ? "only 1..M-2 written" : "input changed", "nothing else written");
}

// ---- Boundary -------------------------------------------------------------------------------------

class Boundary : public testing::TestWithParam<int> {};

TEST_P(Boundary, InsulatedEnds) {
    GPULAB_REQUIRE_DEVICE();
    const int M = GetParam();
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> before = random_rod(rng, M);
    GuardedDeviceArray<float> d_f(M);
    d_f.upload(before);

    student().launch_boundary(d_f.data(), M);
    gpulab::check_student_launch("launch_boundary");

    const std::vector<float> after = d_f.download();
    const auto name_of = [&](float value) -> std::string {
        for (int i = 0; i < M; ++i)
            if (same_bits(value, before[i])) return " (the value f[" + std::to_string(i) + "] had before the call)";
        return gpulab::is_poison(value) ? " (NaN)" : "";
    };
    GPULAB_EXPECT(same_bits(after[0], before[1]))
        << "f[0] should equal f[1] = " << num(before[1]) << " but is " << num(after[0])
        << (same_bits(after[0], before[0]) ? " (unchanged: nothing wrote f[0])" : name_of(after[0])) << ".";
    GPULAB_EXPECT(same_bits(after[M - 1], before[M - 2]))
        << "f[M-1] should equal f[M-2] = " << num(before[M - 2]) << " but is " << num(after[M - 1])
        << (same_bits(after[M - 1], before[M - 1]) ? " (unchanged: nothing wrote f[M-1])" : name_of(after[M - 1]))
        << ". (M = " << M << ": the last cell is f[" << M - 1 << "].)";
    std::size_t changed = 0;
    const std::vector<float> inner_after(after.begin() + 1, after.end() - 1), inner_before(before.begin() + 1, before.end() - 1);
    const long first = first_difference(inner_after, inner_before, &changed);
    GPULAB_EXPECT(changed == 0) << "launch_boundary changed " << changed << " interior cell(s), first at cell " << first + 1
                           << ": it may write only f[0] and f[M-1].";
    const gpulab::GuardReport guards = d_f.check_guards();
    GPULAB_EXPECT(guards.intact()) << "launch_boundary(M=" << M << "): " << guards.describe("the array");
    gpulab::record_figure("ends mirror neighbours", "bitwise");
}

// ---- Solve ----------------------------------------------------------------------------------------

struct SolveCase {
    std::string name;
    int M;
    double k, dx, tmax;
    std::vector<double> start;
};

// The solve cases: every object in lab.json's "solve" section, by its name ("gaussian" is the
// handout's start; the others start from random temperatures).
std::vector<std::string> solve_case_names() {
    std::vector<std::string> names;
    for (const auto& [name, spec] : section("solve").items())
        if (spec.is_object()) names.push_back(name);
    return names;
}

SolveCase solve_case(const std::string& name) {
    const Json& spec = config_at(section("solve"), name);
    SolveCase c{name, spec.at("M"), spec.at("k"), 0, spec.at("tmax"), {}};
    if (name == "gaussian") {
        const double length = spec.at("length");
        c.dx = length / (c.M - 2);
        c.start = oracle::gaussian_start(c.M, length);
    } else {
        c.dx = spec.at("dx");
        gpulab::Rng rng(gpulab::run_seed());
        c.start = oracle::widen(random_rod(rng, c.M));
    }
    return c;
}

class Solve : public testing::TestWithParam<std::string> {};

// A solve that stalled: its result is the start, or the start after one step (a host loop that never
// swaps its buffers runs every step from the start). "" when it is neither.
std::string stalled_solve(const std::vector<float>& f, const std::vector<double>& start, double r) {
    if (std::equal(f.begin(), f.end(), start.begin(), [](float a, double b) { return same_bits(a, float(b)); }))
        return "  Your result is exactly the start: nothing moved. Does integrate copy back the buffer that holds "
               "the last step?\n";
    if (gpulab::relative_l2_error(f, oracle::integrate(start, r, 1)) < 1e-5)
        return "  Your result is the start after 1 step: every step started again from the initial field. Does "
               "your host loop swap the two buffers after each step, so that the next step reads what this one "
               "wrote?\n";
    return "";
}

TEST_P(Solve, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    const SolveCase c = solve_case(GetParam());
    std::vector<float> f(c.start.begin(), c.start.end());
    const int expected_steps = oracle::steps_to(c.k, c.dx, c.tmax);
    const double exact_steps = c.tmax / (0.5 * c.dx * c.dx / c.k);
    const std::string uneven = gpulab::uneven_step_count_hint(c.tmax, exact_steps, expected_steps, "dx^2 / 2k");
    int steps = 0;
    try {
        steps = student().solve(f.data(), c.M, c.k, c.dx, c.tmax);
    } catch (const std::exception& e) {
        FAIL() << "solve(M = " << c.M << ", k = " << c.k << ", dx = " << c.dx << ", tmax = " << c.tmax
               << ") threw: " << e.what() << "." << uneven;
    }

    const double r = c.k * (c.tmax / expected_steps) / (c.dx * c.dx);
    const std::vector<double> expected = oracle::integrate(c.start, r, expected_steps);
    const double error = gpulab::relative_l2_error(f, expected);
    const double tol = section("solve").at("rel_l2_tol");
    gpulab::record_figure("rel L2 err " + sci(error), "<= " + sci(tol, 0));
    GPULAB_EXPECT(steps == expected_steps) << "solve returned " << steps << " steps; the handout's rule (the largest "
                                     << "stable dt that divides tmax) gives " << expected_steps << "." << uneven;
    if (error > tol) {
        gpulab::Shape shape;
        shape.nx = f.size();
        const auto cells = gpulab::compare(f, expected, shape, {tol, tol});
        ADD_FAILURE() << "After solving to t = " << c.tmax << " (M = " << c.M << ", k = " << c.k << ", dx = " << c.dx
                      << "), the relative L2 error is " << sci(error) << " (allowed " << sci(tol, 0) << ").\n"
                      << cells.explain("solve") << stalled_solve(f, c.start, r);
    }
}

// ---- Stability ------------------------------------------------------------------------------------

TEST(Stability, ChosenDtIsStable) {
    const double min_r = section("stability").at("min_r");
    const gpulab::ChosenDtCheck check = gpulab::check_chosen_dt(
        section("stability").at("choose_dt_cases"), "dx", 0.5, "1/2", min_r,
        [](double k, double dx, double tmax) { return student().choose_dt(k, dx, tmax); });
    gpulab::record_figure("largest r " + fixed(check.largest_r, 6), fixed(min_r, 2) + " <= r <= 0.5, whole steps");
    GPULAB_EXPECT(check.problems.empty()) << check.problems;
}

TEST(Stability, RefusesUnstableDt) {
    const int M = 64;
    const double k = 1.0, dx = 0.1;
    std::vector<float> f(M, 1.0f);
    f[M / 2] = 2.0f;
    gpulab::expect_refuses_unstable_dt(f, Json::array({0.52, 1.0, 40.0}), dx * dx / k, "integrate", "1/2",
                                       [&](double dt) { student().integrate(f.data(), M, k, dx, dt, 10); });
}

// A random start that already satisfies the insulated ends, run with the student's integrate.
struct LongRun {
    int steps = 0;
    double r = 0;
    std::vector<float> start, end;
};

LongRun long_run() {
    const Json& spec = section("stability").at("long_run");
    const int M = spec.at("M"), steps = spec.at("steps");
    const double r = spec.at("r"), dx = 1.0, k = 1.0;
    auto rng = gpulab::Rng::for_current_test();
    LongRun run{steps, r, random_rod(rng, M), {}};
    run.start.front() = run.start[1];
    run.start.back() = run.start[M - 2];
    run.end = run.start;
    student().integrate(run.end.data(), M, k, dx, r * dx * dx / k, steps);
    return run;
}

// The variance of the interior cells about their mean: how uneven the temperatures are.
double interior_spread(const std::vector<double>& f) {
    const std::size_t n = f.size() - 2;
    const double mean = std::accumulate(f.begin() + 1, f.end() - 1, 0.0) / double(n);
    double sum = 0;
    for (std::size_t i = 1; i + 1 < f.size(); ++i) sum += (f[i] - mean) * (f[i] - mean);
    return sum / double(n);
}

// A run that froze keeps its range and its heat, so the maximum principle and the conservation of heat
// alone pass it. So the long run must also have evolved as the oracle's run of the same start did: heat
// evens out, and the spread of the temperatures (their variance) shrinks by the oracle's factor.
// Returns "" when it did, else what went wrong, as precisely as the result allows.
std::string evolution_problem(const LongRun& run, double* shrink, double* expected_shrink) {
    const std::vector<double> start = oracle::widen(run.start), end = oracle::widen(run.end);
    const double spread0 = interior_spread(start);
    *expected_shrink = interior_spread(oracle::integrate(start, run.r, run.steps)) / spread0;
    *shrink = interior_spread(end) / spread0;
    const double tol = section("stability").at("evolution_rel_tol");
    if (!std::isfinite(*shrink) || std::fabs(*shrink / *expected_shrink - 1.0) <= tol) return "";  // NaN: said elsewhere
    const std::string steps = std::to_string(run.steps);
    std::ostringstream out;
    out << "The temperatures did not even out as they should: after " << steps << " steps at r = " << fixed(run.r, 2)
        << " the spread of the interior (its variance) should have shrunk to " << sci(*expected_shrink)
        << " of its start, as in the oracle's run of the same start, but yours is " << sci(*shrink)
        << " of it (allowed: within " << fixed(100 * tol, 0) << "%). ";
    const int M = int(start.size());
    std::size_t frozen = 0;
    int first_frozen = -1;
    for (int i = 1; i + 1 < M; ++i)
        if (same_bits(run.end[i], run.start[i]) && frozen++ == 0) first_frozen = i;
    const std::vector<double> one_step = oracle::integrate(start, run.r, 1);
    if (frozen == std::size_t(M - 2))
        out << "In fact the field is exactly the start: nothing moved. Does integrate run its " << steps
            << " steps, swap the two buffers after each, and copy back the buffer that holds the last step (after "
               "the swap, the one the next step would read)?";
    else if (gpulab::relative_l2_error(run.end, one_step) < 1e-5)
        out << "In fact the field after " << steps << " steps looks like the field after 1 step: every step "
            << "started again from the initial field. Does your host loop swap the two buffers after each step "
               "(std::swap(d_a, d_b)), so that the next step reads what this one wrote?";
    else if (frozen * 100 >= std::size_t(M - 2))
        out << frozen << " of the " << M - 2 << " interior cells (the first: cell " << first_frozen
            << ") still hold their start value bit for bit, so the step never updated them. Does every thread "
               "compute its own cell from blockIdx.x, blockDim.x and threadIdx.x, and does the grid cover all M - 2 "
               "interior cells?";
    else
        out << "Check the number of steps integrate runs, the r it passes to the kernel, that each step reads "
               "the previous step's result, and that the boundary kernel runs on the buffer the step just wrote.";
    return out.str();
}

TEST(Stability, MaximumPrinciple) {
    GPULAB_REQUIRE_DEVICE();
    const LongRun run = long_run();
    const auto [lo0, hi0] = std::minmax_element(run.start.begin(), run.start.end());
    const auto [lo, hi] = std::minmax_element(run.end.begin(), run.end.end(),
                                              [](float a, float b) { return a < b || std::isnan(b); });
    const double slack = section("stability").at("max_principle_slack");
    double shrink = 0, expected_shrink = 0;
    const std::string frozen = evolution_problem(run, &shrink, &expected_shrink);
    gpulab::record_figure("range [" + fixed(*lo, 4) + ", " + fixed(*hi, 4) + "], spread x" + sci(shrink),
                          "within [" + fixed(*lo0, 4) + ", " + fixed(*hi0, 4) + "], spread x" + sci(expected_shrink));
    const bool bounded = std::all_of(run.end.begin(), run.end.end(), [&](float v) {
        return std::isfinite(v) && v >= *lo0 - slack && v <= *hi0 + slack;
    });
    GPULAB_EXPECT(frozen.empty()) << frozen << " (A field that does not change never leaves its range either, so "
                                     "this test also checks that it changed as it should.)";
    GPULAB_EXPECT(bounded) << "After a long run at r = 1/2 the temperatures span [" << num(*lo) << ", " << num(*hi)
                         << "], outside the starting range [" << num(*lo0) << ", " << num(*hi0)
                         << "]. With r <= 1/2 every new value is a weighted average of old ones, so it can never "
                            "leave that range: check the formula and the boundary kernel.";
}

TEST(Stability, ConservesHeat) {
    GPULAB_REQUIRE_DEVICE();
    const LongRun run = long_run();
    const auto interior_heat = [](const std::vector<float>& f) {
        return std::accumulate(f.begin() + 1, f.end() - 1, 0.0, [](double sum, float v) { return sum + v; });
    };
    const double before = interior_heat(run.start), after = interior_heat(run.end);
    const double drift = std::fabs(after - before) / before;
    const double tol = section("stability").at("heat_rel_drift");
    double shrink = 0, expected_shrink = 0;
    const std::string frozen = evolution_problem(run, &shrink, &expected_shrink);
    gpulab::record_figure("heat drift " + sci(drift) + ", spread x" + sci(shrink),
                          "<= " + sci(tol, 0) + ", spread x" + sci(expected_shrink));
    GPULAB_EXPECT(frozen.empty()) << frozen << " (A field that does not change keeps its heat too, so this test "
                                     "also checks that it changed as it should.)";
    GPULAB_EXPECT(drift <= tol) << "The total heat of the interior changed from " << num(before) << " to " << num(after)
                          << " (relative " << sci(drift) << "). An insulated rod keeps its heat: the flux "
                          << "through each end is zero when f[0] = f[1] and f[M-1] = f[M-2]. Check the boundary "
                          << "kernel and that it runs after every step.";
}

TEST(Stability, CosineDecayRate) {
    GPULAB_REQUIRE_DEVICE();
    const Json& spec = section("stability").at("cosine");
    const int N = spec.at("interior"), m = spec.at("mode"), steps = spec.at("steps");
    const int M = N + 2;
    const double r = spec.at("r"), k = spec.at("k"), length = 1.0, dx = length / N, dt = r * dx * dx / k;
    std::vector<double> start = oracle::cosine_mode(M, m);
    for (double& v : start) v += 1.0;  // keep every value away from 0
    std::vector<float> f(start.begin(), start.end());
    student().integrate(f.data(), M, k, dx, dt, steps);

    const double measured = oracle::mode_amplitude(oracle::widen(f), m);
    const double lambda = M_PI * m / length;
    const double analytic = std::exp(-k * lambda * lambda * dt * steps);
    const double rel = std::fabs(measured - analytic) / analytic;
    const double tol = spec.at("rel_tol");
    gpulab::record_figure("amplitude " + fixed(measured, 5) + " vs " + fixed(analytic, 5),
                          "rel err <= " + sci(tol, 0));
    GPULAB_EXPECT(rel <= tol) << "Mode m = " << m << " should decay to exp(-k (pi m / L)^2 t) = " << num(analytic)
                        << " of its start after t = " << num(dt * steps) << ", but its amplitude is " << num(measured)
                        << " (relative error " << sci(rel) << ", allowed " << sci(tol, 0) << ").";
}

TEST(Stability, BlowsUpAboveBound) {
    GPULAB_REQUIRE_DEVICE();
    const Json& spec = section("stability").at("blow_up");
    const int N = spec.at("interior"), steps = spec.at("steps");
    const int M = N + 2, m = N - 1;  // the highest mode the insulated rod has
    const double r = spec.at("r"), epsilon = 1e-3;
    std::vector<double> start = oracle::cosine_mode(M, m);
    for (double& v : start) v = 1.0 + epsilon * v;
    // integrate refuses r > 1/2, so the grader drives the student's kernels itself.
    GuardedDeviceArray<float> a(M), b(M);
    a.upload(std::vector<float>(start.begin(), start.end()));
    for (int n = 0; n < steps; ++n) {
        student().launch_step(a.data(), b.data(), M, float(r));
        student().launch_boundary(b.data(), M);
        std::swap(a, b);
    }
    gpulab::check_student_launch("launch_step / launch_boundary");
    const double grown = oracle::mode_amplitude(oracle::widen(a.download()), m) / epsilon;
    const double s = std::sin(M_PI * m / (2.0 * N));
    const double factor = std::fabs(1.0 - 4.0 * r * s * s);
    const double predicted = std::pow(factor, steps);
    const double log_error = std::fabs(std::log(std::fabs(grown)) - std::log(predicted)) / std::log(predicted);
    const double tol = spec.at("log_growth_rel_tol");
    gpulab::record_figure("grew x" + sci(std::fabs(grown)) + ", FTCS predicts x" + sci(predicted),
                          "log within " + fixed(100 * tol, 0) + "%");
    GPULAB_EXPECT(std::isfinite(grown) && log_error <= tol)
        << "At r = " << fixed(r, 2) << " (just above 1/2) FTCS amplifies the highest mode by |1 - 4 r sin^2| = " << num(factor)
        << " per step, so after " << steps << " steps it should have grown " << sci(predicted)
        << " times; in your kernel it grew " << sci(std::fabs(grown))
        << " times. A kernel that stays bounded here is not computing the FTCS step.";
}

// ---- Speed ----------------------------------------------------------------------------------------

// The rules every timed launch_step is held to (gpulab/timed_work.h): a fresh rod before every sample, a
// sample of interior cells recomputed in double after it, the compulsory traffic at the device copy's
// bandwidth as the floor, and the kernels launch_step ran at the probe size as the only ones allowed.
// `step` is the launch function timed: the student's, or the expert's on the roofline ("expert::" names it).
using StepLaunch = void (*)(const float*, float*, int, float);
gpulab::TimedWork timed_step(int M, float r, float* d_in, const float* d_out, double copy_gbs,
                             StepLaunch step = nullptr, const std::string& who = "") {
    if (!step) step = student().launch_step;
    const Json& spec = section("speed");
    gpulab::TimedWork work;
    work.call = who + "launch_step at M = " + std::to_string(M);
    work.seed = gpulab::Rng::for_current_test().seed();
    gpulab::FieldOracle oracle;
    oracle.cells = std::size_t(M);
    oracle.checked = [M](std::size_t i) { return i >= 1 && i + 1 < std::size_t(M); };
    const double rel = section("step").at("rel_tol"), abs = section("step").at("abs_tol");
    oracle.expected = [r, rel, abs](std::size_t i, const gpulab::FreshDraw& d) {
        const double f = d.at(i) + double(r) * (d.at(i - 1) - 2.0 * d.at(i) + d.at(i + 1));
        return gpulab::CellExpectation{f, abs + rel * std::fabs(f)};
    };
    oracle.name = [](std::size_t i) { return "f[" + std::to_string(i) + "]"; };
    oracle.always = {1, std::size_t(M - 2)};
    // Temperatures 0.5 ... 2.5, exact in float (fresh_inputs.h).
    gpulab::use_fresh_field(work, d_in, std::size_t(M), gpulab::FreshDraw{0, 0.5f, 1.0f / (1 << 19)}, d_out,
                            spec.at("fresh_checks"), oracle);
    gpulab::set_memory_floor(work, 8.0 * double(M - 2), copy_gbs, spec.at("floor_margin"));
    const int probe = spec.at("probe_M");
    GuardedDeviceArray<float> p_in(probe), p_out(probe);
    gpulab::fill_fresh(p_in.data(), std::size_t(probe), gpulab::FreshDraw{1, 0.5f, 1.0f / (1 << 19)});
    work.approved = gpulab::probe_launches([&] { step(p_in.data(), p_out.data(), probe, r); });
    gpulab::check_student_launch(who + "launch_step at M = " + std::to_string(probe));
    work.approved_at = "M = " + std::to_string(probe);
    return work;
}

TEST(Speed, StepThroughput) {
    GPULAB_REQUIRE_GPU();
    const Json& spec = section("speed");
    const int M = spec.at("M");
    const float r = 0.25f;
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> in = random_rod(rng, M);
    GuardedDeviceArray<float> d_in(M), d_student(M), d_reference(M);
    d_in.upload(in);

    gpulab::TimingOptions options;
    options.warmup = spec.at("warmup");
    options.samples = spec.at("samples");
    const double copy_gbs = gpulab::copy_bandwidth_gbs(std::size_t(M) * sizeof(float), options);
    gpulab::TimedWork work = timed_step(M, r, d_in.data(), d_student.data(), copy_gbs);

    // Speed counts only for a correct kernel, so check this size first (under the deadline: a launch that
    // computes on the host must not hold the test for minutes).
    {
        gpulab::LaunchRecorder recorder;
        gpulab::first_launch_under_deadline(work, [&] { student().launch_step(d_in.data(), d_student.data(), M, r); },
                                            [&] { reference().launch_step(d_in.data(), d_reference.data(), M, r); });
        gpulab::check_student_launch("launch_step");
        for (const auto& launch : recorder.launches()) testing::Test::RecordProperty("student_launch", launch.describe());
    }
    {
        const std::vector<float> out = d_student.download();
        const std::vector<double> expected = oracle::step(oracle::widen(in), double(r));
        gpulab::Shape shape;
        shape.nx = std::size_t(M - 2);
        shape.origin_x = 1;
        const auto result = gpulab::compare(std::vector<float>(out.begin() + 1, out.end() - 1),
                                            std::vector<double>(expected.begin() + 1, expected.end() - 1), shape,
                                            {section("step").at("rel_tol"), section("step").at("abs_tol")});
        GPULAB_ASSERT(result.ok()) << result.explain("launch_step at M = " + std::to_string(M));
    }

    const double threshold = spec.at("min_fraction_of_reference");
    const gpulab::SpeedVerdict verdict = gpulab::judge_speed(
        [&] { student().launch_step(d_in.data(), d_student.data(), M, r); },
        [&] { reference().launch_step(d_in.data(), d_reference.data(), M, r); }, threshold,
        spec.at("max_remeasures"), options, {d_student.data(), std::size_t(M) * sizeof(float)},
        {d_reference.data(), std::size_t(M) * sizeof(float)}, &work);
    const double bytes = 8.0 * double(M - 2);  // one read and one write per interior cell, at least
    const gpulab::Throughput throughput = gpulab::record_speed(verdict, bytes, copy_gbs);
    GPULAB_ASSERT(verdict.honest()) << gpulab::dishonest_speed(work.call, verdict);
    GPULAB_EXPECT(verdict.passed()) << "Your step kernel runs at " << fixed(verdict.fraction, 2)
                                  << "x the reference's throughput (" << gpulab::speed_comparison(verdict, throughput)
                                  << "). The bar is " << fixed(threshold, 2)
                                  << "x. Measured " << verdict.rounds << " time(s). Is every access coalesced "
                                  << "(neighbouring threads on neighbouring cells), and is each block big enough "
                                  << "(128 to 512 threads)?";
}

// ---- Report: the roofline ----------------------------------------------------------------------------

// The step kernel at the speed size on the roofline of this GPU (gpulab/roofline.h), beside the reference's
// and the expert's. lab.json "roofline" states a cell's cost: 5 flops (in + r*(l - 2c + rt): two subtractions,
// an add, two multiplies) and 8 compulsory bytes (one float read, one written).
TEST(Report, Roofline) {
    GPULAB_REQUIRE_GPU();
    const int M = section("speed").at("M");
    const float r = 0.25f;
    GuardedDeviceArray<float> d_in(M), d_out(M), d_reference(M);
    gpulab::fill_fresh(d_in.data(), std::size_t(M), gpulab::FreshDraw{2, 0.5f, 1.0f / (1 << 19)});
    gpulab::TimingOptions options;
    options.warmup = section("roofline").at("warmup");
    options.samples = section("roofline").at("samples");
    const gpulab::Roofs roofs = gpulab::measure_roofs(std::size_t(M) * sizeof(float), options);
    const Json& roof = section("roofline");
    const double flops = roof.at("operations_per_cell").get<double>() * double(M - 2),
                 bytes = roof.at("bytes_per_cell").get<double>() * double(M - 2);
    auto work = std::make_shared<gpulab::TimedWork>(timed_step(M, r, d_in.data(), d_out.data(), roofs.copy_gbs));
    std::vector<gpulab::RooflineKernel> kernels;
    gpulab::add_student_and_reference(kernels, "step", "fp32", flops, bytes,
                                      [&] { student().launch_step(d_in.data(), d_out.data(), M, r); },
                                      [&] { reference().launch_step(d_in.data(), d_reference.data(), M, r); }, work);
    std::string why;
    if (const auto* expert = gpulab::expert_api<HeatRodExpertApi>(kLab, &why))
        kernels.push_back({"expert", "expert", "fp32", flops, bytes,
                           [&, expert] { expert->launch_step(d_in.data(), d_out.data(), M, r); },
                           std::make_shared<gpulab::TimedWork>(timed_step(M, r, d_in.data(), d_out.data(), roofs.copy_gbs,
                                                                          expert->launch_step, "expert::"))});
    else
        kernels.push_back({"expert", "expert", "fp32", flops, bytes, {}, nullptr, why});
    gpulab::publish_roofline(gpulab::measure_roofline(roofs, "a rod of M = " + std::to_string(M) + " floats", kernels, options),
                             "[lab 01]");
}

// launch_step at the timed size, in a dry run (gpulab/launch_geometry.h): an instance of Step.MatchesOracle.
const bool kTimedGeometry = gpulab::add_geometry_checks([] {
    const int M = section("speed").at("M");
    const std::size_t bytes = std::size_t(M) * sizeof(float);
    return std::vector<gpulab::GeometryCheck>{
        {"Step", "MatchesOracle", "M" + std::to_string(M), "launch_step at M = " + std::to_string(M), {bytes, bytes},
         [M](const std::vector<void*>& b) { student().launch_step(static_cast<float*>(b[0]), static_cast<float*>(b[1]), M, 0.25f); }}};
});

INSTANTIATE_TEST_SUITE_P(Sizes, Step, testing::ValuesIn(step_cases()),
                         [](const testing::TestParamInfo<StepCase>& info) {
                             return "M" + std::to_string(info.param.M) + "_r" + gpulab::name_safe(info.param.r);
                         });
INSTANTIATE_TEST_SUITE_P(Sizes, StepScope, testing::ValuesIn(sizes_of("step")),
                         [](const testing::TestParamInfo<int>& info) { return "M" + std::to_string(info.param); });
INSTANTIATE_TEST_SUITE_P(Sizes, Boundary, testing::ValuesIn(sizes_of("boundary")),
                         [](const testing::TestParamInfo<int>& info) { return "M" + std::to_string(info.param); });
INSTANTIATE_TEST_SUITE_P(Starts, Solve, testing::ValuesIn(solve_case_names()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
