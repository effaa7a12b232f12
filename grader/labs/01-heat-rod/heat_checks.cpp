#include "heat_checks.h"

#include "oracle.h"
#include "rod_grading.h"

#include "heat_theory.h"
#include "time_step_checks.h"

#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/guarded_array.h"

#include <cmath>

namespace heat_rod_grading {

using gpulab::num;
namespace oracle = heat_rod_oracle;

namespace {

// A random start that already satisfies the insulated ends, run with the student's integrate; the oracle's run
// of the same start beside it.
heat_grading::InsulatedRun long_run() {
    const Json& spec = section("stability").at("long_run");
    const int M = spec.at("M"), steps = spec.at("steps");
    const double r = spec.at("r"), dx = 1.0, k = 1.0;
    auto rng = gpulab::Rng::for_current_test();
    std::vector<float> start = random_rod(rng, M);
    start.front() = start[1];
    start.back() = start[M - 2];
    std::vector<float> end = start;
    student().integrate(end.data(), M, k, dx, r * dx * dx / k, steps);

    heat_grading::InsulatedRun run;
    run.dim = kRod;
    run.r = r, run.steps = steps;
    run.range_start = start, run.range_end = end;  // the ghost ends too: a wrong end shows there first
    run.start = interior_of(start), run.end = interior_of(end);
    run.oracle_end = interior_of(oracle::integrate(oracle::widen(start), r, steps));
    run.oracle_one_step = interior_of(oracle::integrate(oracle::widen(start), r, 1));
    run.cell_name = [](std::size_t c) { return std::to_string(c + 1); };
    run.thread_hint = "Does every thread compute its own cell from blockIdx.x, blockDim.x and threadIdx.x, and does the "
                      "grid cover all M - 2 interior cells?";
    return run;
}

}  // namespace

void check_refuses_unstable_dt() {
    const int M = 64;
    const double k = 1.0, dx = 0.1;
    std::vector<float> f(M, 1.0f);
    f[M / 2] = 2.0f;
    heat_grading::check_refuses_unstable_dt(kRod, f, Json::array({0.52, 1.0, 40.0}), dx * dx / k, "integrate",
                                            [&](double dt) { student().integrate(f.data(), M, k, dx, dt, 10); });
}

void check_maximum_principle() {
    heat_grading::check_maximum_principle(long_run(), section("stability").at("max_principle_slack"),
                                          section("stability").at("evolution_rel_tol"));
}

void check_conserves_heat() {
    heat_grading::check_conserves_heat(long_run(), section("stability").at("heat_rel_drift"),
                                       section("stability").at("evolution_rel_tol"));
}

void check_cosine_decay_rate() {
    const Json& spec = section("stability").at("cosine");
    const int N = spec.at("interior"), m = spec.at("mode"), steps = spec.at("steps");
    const int M = N + 2;
    const double r = spec.at("r"), k = spec.at("k"), length = 1.0, dx = length / N, dt = r * dx * dx / k;
    std::vector<double> start = oracle::cosine_mode(M, m);
    for (double& v : start) v += 1.0;  // keep every value away from 0
    std::vector<float> f(start.begin(), start.end());
    student().integrate(f.data(), M, k, dx, dt, steps);

    const double lambda = M_PI * m / length;
    heat_grading::ModeDecay decay;
    decay.mode = "The mode cos(pi m (i - 1/2) / N) with m = " + std::to_string(m) + " on N = " + std::to_string(N) +
                 " interior cells";
    decay.law = "exp(-k (pi m / L)^2 t), the continuous equation's rate";
    decay.after = "after t = " + num(dt * steps) + " (" + std::to_string(steps) + " steps of integrate)";
    decay.measured = oracle::mode_amplitude(oracle::widen(f), m);
    decay.predicted = std::exp(-k * lambda * lambda * dt * steps);
    decay.tol = spec.at("rel_tol");
    decay.neighbours = kRod.neighbours();
    heat_grading::check_mode_decay(decay);
}

void check_blows_up_above_bound() {
    const Json& spec = section("stability").at("blow_up");
    const int N = spec.at("interior"), steps = spec.at("steps");
    const int M = N + 2, m = N - 1;  // the highest mode the insulated rod has
    const double r = spec.at("r"), epsilon = 1e-3;
    std::vector<double> start = oracle::cosine_mode(M, m);
    for (double& v : start) v = 1.0 + epsilon * v;
    // integrate refuses r > 1/2, so the grader drives the student's kernels itself.
    gpulab::GuardedDeviceArray<float> a(M), b(M);
    a.upload(std::vector<float>(start.begin(), start.end()));
    for (int n = 0; n < steps; ++n) {
        student().launch_step(a.data(), b.data(), M, float(r));
        student().launch_boundary(b.data(), M);
        std::swap(a, b);
    }
    gpulab::check_student_launch("launch_step / launch_boundary");
    heat_grading::Growth growth;
    growth.dim = kRod;
    growth.mode = "the highest mode of the rod (m = " + std::to_string(m) + ")";
    growth.r = r, growth.steps = steps, growth.tol = spec.at("log_growth_rel_tol");
    growth.factor = heat_grading::ftcs_factor({M_PI * m / N}, r);
    growth.grown = oracle::mode_amplitude(oracle::widen(a.download()), m) / epsilon;
    heat_grading::check_growth_above_bound(growth);
}

}  // namespace heat_rod_grading
