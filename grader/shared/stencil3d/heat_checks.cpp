#include "heat_checks.h"

#include "oracle.h"

#include "heat_theory.h"

#include "gpulab/compare.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/random.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>
#include <sstream>

namespace stencil3d_grading {

using gpulab::fixed;
using gpulab::num;
using gpulab::sci;

std::string kernel_precision_name(const testing::TestParamInfo<KernelPrecision>& info) {
    std::string name = technique_name(info.param.technique);
    std::replace(name.begin(), name.end(), '-', '_');
    return name + "_" + precision_name(info.param.precision);
}

namespace {

constexpr heat_grading::Dimension kBox{3};

// A setting lab.json gives per precision: {"float": ..., "double": ...}.
template <typename T>
double for_precision(const gpulab::Json& setting) {
    const double value = setting.at(precision_name(precision_of<T>()));
    return value;
}

// `steps` heat sweeps of the student's kernel, run by the grader: two buffers that both start as
// `start` (so both carry its boundary), launch, swap. Returns false, having reported why, when a
// launch failed.
template <typename T>
bool run_heat(Technique t, const std::vector<T>& start, const Grid3& g, double r, int steps, std::vector<T>* end) {
    const StencilLaunch<T> launch = student().of(t).get<T>();
    gpulab::GuardedDeviceArray<T> a(g.cells()), b(g.cells());
    a.upload(start);
    b.upload(start);
    T* from = a.data();
    T* to = b.data();
    const Coeffs<T> c = oracle::heat_coefficients<T>(r);
    const std::string call = std::string(launcher_name(t)) + " (" + std::to_string(steps) + " heat steps at r = " +
                             fixed(r, 4) + ", " + precision_name(precision_of<T>()) + ", " + g.name() + ")";
    for (int n = 0; n < steps; ++n) {
        if (n == 0 && !launch_checked(launch, from, to, g, c, call)) return false;
        if (n > 0) launch(from, to, g.nx, g.ny, g.nz, c);
        std::swap(from, to);
    }
    try {
        gpulab::check_student_launch(call);
    } catch (const gpulab::CudaError& e) {
        ADD_FAILURE() << e.what();
        return false;
    }
    *end = (from == a.data() ? a : b).download();
    return true;
}

// "" when one launch of the student's kernel computes one heat step on `start` right; else why not, pointing at
// the test that says where. A kernel that is not right yet fails every stability check, and the reason is its
// formula or indexing, not the scheme: say so rather than guess from the run.
template <typename T>
std::string not_right_yet(Technique t, const std::vector<T>& start, const Grid3& g, double r) {
    gpulab::GuardedDeviceArray<T> d_in(g.cells()), d_out(g.cells());
    d_in.upload(start);
    student().of(t).get<T>()(d_in.data(), d_out.data(), g.nx, g.ny, g.nz, oracle::heat_coefficients<T>(r));
    if (cudaDeviceSynchronize() != cudaSuccess || cudaGetLastError() != cudaSuccess)
        return std::string("Your ") + technique_name(t) + " kernel fails to run here.";
    const OutputReport report = inspect_output(d_out.download(), start, g, oracle::heat_coefficients<double>(r),
                                               tolerance_of(precision_of<T>()), "");
    if (report.ok()) return "";
    return std::string("Your ") + technique_name(t) + " kernel does not compute one heat step right yet (" +
           std::to_string(report.wrong) + " of " + std::to_string(report.interior) + " interior cells wrong" +
           (report.boundary_written ? ", " + std::to_string(report.boundary_written) + " boundary cells written" : "") +
           " on " + g.name() + "); its MatchesOracle test says where. This test judges the heat scheme once the kernel "
           "is right.";
}

// The projection of f on the mode, over the mode's own norm: the mode's amplitude in f.
template <typename T>
double amplitude_in(const std::vector<T>& f, const std::vector<double>& mode) {
    double dot = 0, norm = 0;
    for (std::size_t i = 0; i < f.size(); ++i) {
        dot += double(f[i]) * mode[i];
        norm += mode[i] * mode[i];
    }
    return dot / norm;
}

// The sine mode (mx, my, mz) of the box's interior advances by pi m / (n - 1) a cell along each axis.
std::vector<double> phases(const Grid3& g, int mx, int my, int mz) {
    return {M_PI * mx / (g.nx - 1), M_PI * my / (g.ny - 1), M_PI * mz / (g.nz - 1)};
}

template <typename T>
void maximum_principle(Technique t) {
    const gpulab::Json& spec = section("stability").at("long_run");
    const Grid3 g = grid_of(spec.at("size"));
    const int steps = spec.at("steps");
    const double r = 1.0 / 6.0;
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<T> start = oracle::random_field<T>(rng, g);
    std::vector<T> end;
    if (!run_heat(t, start, g, r, steps, &end)) return;
    const heat_grading::RangeCheck range =
        heat_grading::range_check(start, end, for_precision<T>(section("stability").at("max_principle_slack")));
    const std::vector<double> expected = oracle::heat_steps(oracle::widen(start), g, r, steps);
    const double error = gpulab::relative_l2_error(oracle::widen<T>(end), expected);
    const double start_error = gpulab::relative_l2_error(oracle::widen<T>(start), expected);
    const double tol = for_precision<T>(section("stability").at("long_run_rel_l2"));
    gpulab::record_figure("range " + range.end_text() + ", rel L2 vs oracle " + sci(error),
                          "within " + range.start_text() + ", rel L2 <= " + sci(tol, 0));
    if (!range.bounded() || !(error <= tol))
        if (const std::string why = not_right_yet(t, start, g, r); !why.empty()) return void(ADD_FAILURE() << why);
    GPULAB_EXPECT(range.bounded())
        << "After " << steps << " heat steps at r = 1/6 with your " << technique_name(t) << " kernel ("
        << precision_name(precision_of<T>()) << ", " << g.name() << "), " << range.outside + range.nonfinite
        << " cell(s) left the starting range " << range.start_text(6)
        << (range.nonfinite ? " (" + std::to_string(range.nonfinite) + " not even finite)" : std::string())
        << "; the values span " << range.end_text(6) << ". With r <= 1/6 each new value is a weighted average of old "
        << "ones " << kBox.weights_text() << ", so no value can leave that range.";
    GPULAB_EXPECT(error <= tol)
        << "After " << steps << " heat steps at r = 1/6 your " << technique_name(t) << " kernel's field differs from "
        << "the oracle's run of the same start by a relative L2 error of " << sci(error) << " (allowed " << sci(tol, 0)
        << "; the start itself is " << sci(start_error) << " away from where the run should end)."
        << (error >= 0.5 * start_error ? " Your field hardly moved: does the kernel write its output on every launch, "
                                         "for every interior cell?"
                                       : " Each step is the stencil with c0 = 1 - 6r and c1..c6 = r: does it keep its "
                                         "fixed boundary values and use the weights it is given?");
}

template <typename T>
void sine_decay(Technique t) {
    const gpulab::Json& spec = section("stability").at("sine");
    const Grid3 g = grid_of(spec.at("size"));
    const int mx = spec.at("modes").at(0), my = spec.at("modes").at(1), mz = spec.at("modes").at(2);
    const double r = spec.at("r");
    const int steps = spec.at("steps");
    const std::vector<double> mode = oracle::sine_mode(g, mx, my, mz, 1.0);
    std::vector<T> end;
    if (!run_heat(t, oracle::to<T>(mode), g, r, steps, &end)) return;
    const double factor = heat_grading::ftcs_factor(phases(g, mx, my, mz), r);
    heat_grading::ModeDecay decay;
    decay.kernel = std::string(technique_name(t)) + " (" + precision_name(precision_of<T>()) + ")";
    decay.mode = "A sine mode (" + std::to_string(mx) + ", " + std::to_string(my) + ", " + std::to_string(mz) +
                 ") with zero boundary on " + g.name();
    decay.law = "the FTCS factor " + fixed(factor, 6) + " each step";
    decay.after = "after " + std::to_string(steps) + " steps at r = " + fixed(r, 3);
    decay.measured = amplitude_in(end, mode);
    decay.predicted = std::pow(factor, steps);
    decay.tol = for_precision<T>(spec.at("rel_tol"));
    decay.neighbours = kBox.neighbours();
    decay.not_right_yet = [&] { return not_right_yet(t, oracle::to<T>(mode), g, r); };
    const double pi2 = M_PI * M_PI;
    const double continuous = std::exp(-r * pi2 *
                                       (double(mx * mx) / ((g.nx - 1) * (g.nx - 1)) + double(my * my) / ((g.ny - 1) * (g.ny - 1)) +
                                        double(mz * mz) / ((g.nz - 1) * (g.nz - 1))));
    std::cout << "[stencil3d] sine mode (" << mx << ", " << my << ", " << mz << ") on " << g.name() << ", r = " << fixed(r, 3)
              << ", " << steps << " steps: amplitude x" << sci(decay.measured, 6) << "; FTCS predicts " << fixed(factor, 6)
              << " a step = x" << sci(decay.predicted, 6) << "; the continuous equation " << fixed(continuous, 6)
              << " a step = x" << sci(std::pow(continuous, steps), 6) << "\n";
    heat_grading::check_mode_decay(decay);
}

template <typename T>
void growth_above_bound(Technique t) {
    const gpulab::Json& spec = section("stability").at("blow_up");
    const Grid3 g = grid_of(spec.at("size"));
    const double r = spec.at("r");
    const int steps = spec.at("steps");
    const std::vector<double> mode = oracle::sine_mode(g, g.nx - 2, g.ny - 2, g.nz - 2, 1e-3);
    std::vector<T> end;
    if (!run_heat(t, oracle::to<T>(mode), g, r, steps, &end)) return;
    heat_grading::Growth growth;
    growth.dim = kBox;
    growth.kernel = std::string(technique_name(t)) + " (" + precision_name(precision_of<T>()) + ")";
    growth.mode = "the highest mode of " + g.name() + " (a checkerboard)";
    growth.r = r, growth.steps = steps, growth.tol = spec.at("log_growth_rel_tol");
    growth.factor = heat_grading::ftcs_factor(phases(g, g.nx - 2, g.ny - 2, g.nz - 2), r);
    growth.grown = amplitude_in(end, mode);
    growth.not_right_yet = [&] { return not_right_yet(t, oracle::to<T>(mode), g, r); };
    heat_grading::check_growth_above_bound(growth);
}

template <typename T>
std::vector<double> drift_errors(Technique t, const std::vector<T>& start, const Grid3& g, const std::vector<int>& sweeps,
                                 bool* ok) {
    std::vector<double> errors;
    std::vector<double> exact = oracle::widen(start);
    int done = 0;
    std::vector<T> field = start;
    for (int s : sweeps) {
        std::vector<T> next;
        if (!run_heat(t, field, g, 1.0 / 6.0, s - done, &next)) {
            *ok = false;
            return errors;
        }
        exact = oracle::heat_steps(exact, g, 1.0 / 6.0, s - done);
        field = next;
        done = s;
        errors.push_back(gpulab::relative_l2_error(oracle::widen(field), exact));
    }
    return errors;
}

}  // namespace

void check_maximum_principle(Technique t, Precision p) {
    if (p == Precision::f32) maximum_principle<float>(t);
    else maximum_principle<double>(t);
}

void check_sine_decay(Technique t, Precision p) {
    if (p == Precision::f32) sine_decay<float>(t);
    else sine_decay<double>(t);
}

void check_growth_above_bound(Technique t, Precision p) {
    if (p == Precision::f32) growth_above_bound<float>(t);
    else growth_above_bound<double>(t);
}

void report_precision_drift(Technique t) {
    const gpulab::Json& spec = section("drift");
    const Grid3 g = grid_of(spec.at("size"));
    const std::vector<int> sweeps = spec.at("sweeps");
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<double> start = oracle::widen(oracle::random_field<float>(rng, g));
    bool ok = true;
    const std::vector<double> f32 = drift_errors(t, oracle::to<float>(start), g, sweeps, &ok);
    const std::vector<double> f64 = ok ? drift_errors(t, start, g, sweeps, &ok) : std::vector<double>{};
    if (!ok) return;
    std::ostringstream table;
    table << "  sweeps   float rel L2 error   double rel L2 error\n";
    for (std::size_t i = 0; i < sweeps.size(); ++i) {
        char line[96];
        std::snprintf(line, sizeof line, "%8d %20.3e %21.3e\n", sweeps[i], f32[i], f64[i]);
        table << line;
    }
    std::cout << "[stencil3d] float vs double with your " << technique_name(t) << " kernel, heat steps at r = 1/6 on "
              << g.name() << ", each against the double-precision oracle:\n"
              << table.str();
    testing::Test::RecordProperty("drift_table", table.str());
    gpulab::record_figure("after " + std::to_string(sweeps.back()) + " sweeps: float " + sci(f32.back()) + ", double " +
                              sci(f64.back()),
                          "report; float <= " + sci(spec.at("float_max").get<double>(), 0) + ", double <= " +
                              sci(spec.at("double_max").get<double>(), 0));
    const bool small = f32.back() <= spec.at("float_max").get<double>() && f64.back() <= spec.at("double_max").get<double>();
    if (!small)
        if (const std::string why = not_right_yet(t, oracle::to<float>(start), g, 1.0 / 6.0); !why.empty())
            return void(ADD_FAILURE() << why);
    GPULAB_EXPECT(small)
        << "After " << sweeps.back() << " sweeps the errors are float " << sci(f32.back()) << ", double "
        << sci(f64.back()) << ": rounding alone stays far below that. Is the kernel the same in both precisions?";
}

}  // namespace stencil3d_grading
