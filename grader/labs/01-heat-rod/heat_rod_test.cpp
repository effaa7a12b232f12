// The grader of lab 01 (heat in a 1D rod). Points, sizes and tolerances come from
// labs/01-heat-rod/lab.json; the handout describes every test by the same name.
#include "api.h"
#include "oracle.h"

#include "gpulab/compare.h"
#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/lab_config.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/random.h"
#include "gpulab/speed_report.h"
#include "gpulab/time_step_checks.h"
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

TEST_P(Solve, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    const SolveCase c = solve_case(GetParam());
    std::vector<float> f(c.start.begin(), c.start.end());
    const int steps = student().solve(f.data(), c.M, c.k, c.dx, c.tmax);

    const int expected_steps = oracle::steps_to(c.k, c.dx, c.tmax);
    const double r = c.k * (c.tmax / expected_steps) / (c.dx * c.dx);
    const std::vector<double> expected = oracle::integrate(c.start, r, expected_steps);
    const double error = gpulab::relative_l2_error(f, expected);
    const double tol = section("solve").at("rel_l2_tol");
    gpulab::record_figure("rel L2 err " + sci(error), "<= " + sci(tol, 0));
    GPULAB_EXPECT(steps == expected_steps) << "solve returned " << steps << " steps; the handout's rule (the largest "
                                     << "stable dt that divides tmax) gives " << expected_steps << ".";
    if (error > tol) {
        gpulab::Shape shape;
        shape.nx = f.size();
        const auto cells = gpulab::compare(f, expected, shape, {tol, tol});
        ADD_FAILURE() << "After solving to t = " << c.tmax << " (M = " << c.M << ", k = " << c.k << ", dx = " << c.dx
                      << "), the relative L2 error is " << sci(error) << " (allowed " << sci(tol, 0) << ").\n"
                      << cells.explain("solve");
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
    const std::vector<float> before = f;
    for (double r : {0.52, 1.0, 40.0}) {
        const double dt = r * dx * dx / k;
        try {
            student().integrate(f.data(), M, k, dx, dt, 10);
            ADD_FAILURE() << "integrate accepted dt = " << dt << " (r = " << fixed(r, 2)
                          << " > 1/2) and ran. An unstable request must throw std::invalid_argument before "
                             "anything runs.";
        } catch (const std::invalid_argument& refused) {
            GPULAB_EXPECT(std::strlen(refused.what()) > 0) << "the refusal should say why (give the value of r)";
            gpulab::record_figure(std::string("refused: ") + refused.what(), "std::invalid_argument");
        } catch (const std::exception& other) {
            ADD_FAILURE() << "integrate with r = " << fixed(r, 2)
                          << " threw something other than std::invalid_argument: " << other.what();
        }
        GPULAB_EXPECT(std::equal(f.begin(), f.end(), before.begin(), same_bits<float>))
            << "integrate changed f although the request (r = " << fixed(r, 2) << ") was unstable.";
    }
}

// A random start that already satisfies the insulated ends, run with the student's integrate.
struct LongRun {
    std::vector<float> start, end;
};

LongRun long_run() {
    const Json& spec = section("stability").at("long_run");
    const int M = spec.at("M"), steps = spec.at("steps");
    const double r = spec.at("r"), dx = 1.0, k = 1.0;
    auto rng = gpulab::Rng::for_current_test();
    LongRun run{random_rod(rng, M), {}};
    run.start.front() = run.start[1];
    run.start.back() = run.start[M - 2];
    run.end = run.start;
    student().integrate(run.end.data(), M, k, dx, r * dx * dx / k, steps);
    return run;
}

TEST(Stability, MaximumPrinciple) {
    GPULAB_REQUIRE_DEVICE();
    const LongRun run = long_run();
    const auto [lo0, hi0] = std::minmax_element(run.start.begin(), run.start.end());
    const auto [lo, hi] = std::minmax_element(run.end.begin(), run.end.end(),
                                              [](float a, float b) { return a < b || std::isnan(b); });
    const double slack = section("stability").at("max_principle_slack");
    gpulab::record_figure("range [" + fixed(*lo, 4) + ", " + fixed(*hi, 4) + "]",
                          "within [" + fixed(*lo0, 4) + ", " + fixed(*hi0, 4) + "]");
    const bool bounded = std::all_of(run.end.begin(), run.end.end(), [&](float v) {
        return std::isfinite(v) && v >= *lo0 - slack && v <= *hi0 + slack;
    });
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
    gpulab::record_figure("heat drift " + sci(drift), "<= " + sci(tol, 0));
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

TEST(Speed, StepThroughput) {
    GPULAB_REQUIRE_GPU();
    const Json& spec = section("speed");
    const int M = spec.at("M");
    const float r = 0.25f;
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> in = random_rod(rng, M);
    GuardedDeviceArray<float> d_in(M), d_student(M), d_reference(M);
    d_in.upload(in);

    // Speed counts only for a correct kernel, so check this size first.
    {
        gpulab::LaunchRecorder recorder;
        student().launch_step(d_in.data(), d_student.data(), M, r);
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

    gpulab::TimingOptions options;
    options.warmup = spec.at("warmup");
    options.samples = spec.at("samples");
    const double threshold = spec.at("min_fraction_of_reference");
    const gpulab::SpeedVerdict verdict = gpulab::judge_speed(
        [&] { student().launch_step(d_in.data(), d_student.data(), M, r); },
        [&] { reference().launch_step(d_in.data(), d_reference.data(), M, r); }, threshold,
        spec.at("max_remeasures"), options);
    const double bytes = 8.0 * double(M - 2);  // one read and one write per interior cell, at least
    const double copy_gbs = gpulab::copy_bandwidth_gbs(std::size_t(M) * sizeof(float), options);
    const gpulab::Throughput throughput = gpulab::record_speed(verdict, bytes, copy_gbs);
    GPULAB_EXPECT(verdict.passed()) << "Your step kernel runs at " << fixed(verdict.fraction, 2)
                                  << "x the reference's throughput (" << gpulab::speed_comparison(verdict, throughput)
                                  << "). The bar is " << fixed(threshold, 2)
                                  << "x. Measured " << verdict.rounds << " time(s). Is every access coalesced "
                                  << "(neighbouring threads on neighbouring cells), and is each block big enough "
                                  << "(128 to 512 threads)?";
}

INSTANTIATE_TEST_SUITE_P(Sizes, Step, testing::ValuesIn(step_cases()),
                         [](const testing::TestParamInfo<StepCase>& info) {
                             return "M" + std::to_string(info.param.M) + "_r" + gpulab::name_safe(info.param.r);
                         });
INSTANTIATE_TEST_SUITE_P(Sizes, StepScope, testing::ValuesIn(sizes_of("step")),
                         [](const testing::TestParamInfo<int>& info) { return "M" + std::to_string(info.param); });
INSTANTIATE_TEST_SUITE_P(Sizes, Boundary, testing::ValuesIn(sizes_of("boundary")),
                         [](const testing::TestParamInfo<int>& info) { return "M" + std::to_string(info.param); });
INSTANTIATE_TEST_SUITE_P(Starts, Solve, testing::Values("gaussian", "random"),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
