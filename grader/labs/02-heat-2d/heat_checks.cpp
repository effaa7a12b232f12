#include "heat_checks.h"

#include "square_grading.h"

#include "heat_theory.h"
#include "time_step_checks.h"

#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"

#include <cmath>

namespace heat_2d_grading {

using gpulab::num;

namespace {

// A random start that already satisfies the insulated walls, run with the student's integrate and `kernel`; the
// oracle's run of the same start beside it.
heat_grading::InsulatedRun long_run(int kernel) {
    const Json& spec = section("stability").at("long_run");
    const Grid g{spec.at("nx").get<int>(), spec.at("ny").get<int>()};
    const int steps = spec.at("steps");
    const double r = spec.at("r"), h = 1.0, k = 1.0;
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> start = random_insulated_field(rng, g);
    std::vector<float> end = start;
    student().integrate(end.data(), g.nx, g.ny, k, h, r * h * h / k, steps, kernel);

    heat_grading::InsulatedRun run;
    run.dim = kSquare;
    run.kernel = kernel_name(kernel);
    run.r = r, run.steps = steps;
    run.start = interior_of(start, g), run.end = interior_of(end, g);
    run.range_start = run.start, run.range_end = run.end;  // the corners are never written
    run.oracle_end = interior_of(oracle::integrate(oracle::widen(start), g, r, steps), g);
    run.oracle_one_step = interior_of(oracle::integrate(oracle::widen(start), g, r, 1), g);
    run.cell_name = [nx = g.nx](std::size_t c) { return cell_name(int(c % nx) + 1, int(c / nx) + 1); };
    run.thread_hint = "Does every thread compute its own cell from blockIdx, blockDim and threadIdx, and does the grid "
                      "cover the whole interior in both directions?";
    return run;
}

}  // namespace

void check_refuses_unstable_dt() {
    const Grid g{16, 12};
    const double k = 1.0, h = 0.1;
    std::vector<float> f(g.cells(), 1.0f);
    f[g.at(8, 6)] = 2.0f;
    for (int kernel : {kNaiveKernel, kTiledKernel})
        heat_grading::check_refuses_unstable_dt(
            kSquare, f, section("stability").at("refused_ratios"), h * h / k,
            std::string("integrate(..., ") + kernel_name(kernel) + ")",
            [&](double dt) { student().integrate(f.data(), g.nx, g.ny, k, h, dt, 10, kernel); });
}

void check_maximum_principle(int kernel) {
    heat_grading::check_maximum_principle(long_run(kernel), section("stability").at("max_principle_slack"),
                                          section("stability").at("evolution_rel_tol"));
}

void check_conserves_heat(int kernel) {
    heat_grading::check_conserves_heat(long_run(kernel), section("stability").at("heat_rel_drift"),
                                       section("stability").at("evolution_rel_tol"));
}

void check_cosine_decay_rate(int kernel) {
    const Json& spec = section("stability").at("cosine");
    const Grid g{spec.at("nx").get<int>(), spec.at("ny").get<int>()};
    const int m = spec.at("m"), n = spec.at("n"), steps = spec.at("steps");
    const double r = spec.at("r"), k = spec.at("k"), h = spec.at("h"), dt = r * h * h / k;
    const double lx = g.nx * h, ly = g.ny * h;
    std::vector<double> start = oracle::cosine_mode(g, m, n);
    for (double& v : start) v += 1.0;  // keep every value away from 0
    std::vector<float> f = oracle::narrow(start);
    student().integrate(f.data(), g.nx, g.ny, k, h, dt, steps, kernel);

    const double lambda = (M_PI * m / lx) * (M_PI * m / lx) + (M_PI * n / ly) * (M_PI * n / ly);
    heat_grading::ModeDecay decay;
    decay.kernel = kernel_name(kernel);
    decay.mode = "The mode cos(pi m (i-1/2)/nx) cos(pi n (j-1/2)/ny) with m = " + std::to_string(m) + ", n = " +
                 std::to_string(n) + " on " + std::to_string(g.nx) + " x " + std::to_string(g.ny) + " cells";
    decay.law = "exp(-k ((pi m/Lx)^2 + (pi n/Ly)^2) t), the continuous equation's rate";
    decay.after = "after t = " + num(dt * steps) + " (" + std::to_string(steps) + " steps of integrate)";
    decay.measured = oracle::mode_amplitude(oracle::widen(f), g, m, n);
    decay.predicted = std::exp(-k * lambda * dt * steps);
    decay.tol = spec.at("rel_tol");
    decay.neighbours = kSquare.neighbours();
    heat_grading::check_mode_decay(decay);
}

void check_blows_up_above_bound(int kernel) {
    const Json& spec = section("stability").at("blow_up");
    const Grid g{spec.at("nx").get<int>(), spec.at("ny").get<int>()};
    const int steps = spec.at("steps");
    const int m = g.nx - 1, n = g.ny - 1;  // the highest mode the insulated square has
    const double r = spec.at("r"), epsilon = 1e-3;
    std::vector<double> start = oracle::cosine_mode(g, m, n);
    for (double& v : start) v = 1.0 + epsilon * v;
    // integrate refuses r > 1/4, so the grader drives the student's kernels itself.
    gpulab::GuardedDeviceArray<float> a(g.cells()), b(g.cells());
    a.upload(oracle::narrow(start));
    b.upload(oracle::narrow(start));  // corners: never written, never read
    const StepFn step = step_of(student(), kernel);
    for (int s = 0; s < steps; ++s) {
        step(a.data(), b.data(), g.nx, g.ny, float(r));
        student().launch_boundary(b.data(), g.nx, g.ny);
        std::swap(a, b);
    }
    gpulab::check_student_launch(std::string(launcher_name(kernel)) + " / launch_boundary");
    const std::vector<float> end = a.download(), begin = oracle::narrow(start);
    GPULAB_ASSERT(!std::equal(end.begin(), end.end(), begin.begin(), gpulab::same_bits<float>))
        << "After " << steps << " steps of " << launcher_name(kernel) << " and launch_boundary the field has not "
        << "changed at all: the kernels wrote nothing. Are they still TODOs?";
    heat_grading::Growth growth;
    growth.dim = kSquare;
    growth.kernel = kernel_name(kernel);
    growth.mode = "the highest mode of the " + std::to_string(g.nx) + " x " + std::to_string(g.ny) + " square";
    growth.r = r, growth.steps = steps, growth.tol = spec.at("log_growth_rel_tol");
    growth.factor = heat_grading::ftcs_factor({M_PI * m / g.nx, M_PI * n / g.ny}, r);
    growth.grown = oracle::mode_amplitude(oracle::widen(end), g, m, n) / epsilon;
    heat_grading::check_growth_above_bound(growth);
}

}  // namespace heat_2d_grading
