// Lab 01's part of the sanitizer pass (gpulab/sanitizer_check.h): each of the student's kernels launched once
// on a rod of 997 cells, on exactly sized buffers, for Sanitizer.NoErrors to run under compute-sanitizer.
#include "api.h"
#include "oracle.h"

#include "gpulab/grader_test.h"
#include "gpulab/random.h"
#include "gpulab/sanitizer_check.h"

namespace {

namespace oracle = heat_rod_oracle;

constexpr int kCells = 997;  // a prime: no block size divides it

const bool kSanitizerWorkload = gpulab::add_sanitizer_workload([] {
    const HeatRodApi& api = gpulab::lab_api<HeatRodApi>(gpulab::Role::student, "01-heat-rod");
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> in = rng.uniform_floats(kCells, 0.5f, 2.0f);
    const float r = 0.4f;
    gpulab::Shape rod;
    rod.nx = kCells;
    // The output starts as a copy of the input: the step leaves both ends alone, as the oracle does.
    gpulab::ExactDeviceArray<float> d_in(in), d_out(in);
    api.launch_step(d_in.data(), d_out.data(), kCells, r);
    gpulab::check_student_launch("launch_step");
    gpulab::check_workload_output("launch_step", gpulab::compare(d_out.download(), oracle::step(oracle::widen(in), r),
                                                                 rod, {1e-5, 1e-6}));

    api.launch_boundary(d_in.data(), kCells);
    gpulab::check_student_launch("launch_boundary");
    std::vector<double> ends = oracle::widen(in);
    oracle::apply_insulated_ends(ends);
    gpulab::check_workload_output("launch_boundary", gpulab::compare(d_in.download(), ends, rod, {0, 0}));
});

}  // namespace
