#include "speed.h"

#include "square_grading.h"

#include "gpulab/compare.h"
#include "gpulab/cuda_check.h"
#include "gpulab/expert.h"
#include "gpulab/format.h"
#include "gpulab/gpu_profile_report.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/launch_deadline.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/roofline.h"
#include "gpulab/speed_report.h"
#include "gpulab/timed_field.h"
#include "gpulab/timing.h"

#include <cmath>
#include <iostream>
#include <memory>

namespace heat_2d_grading {

using gpulab::fixed;
using gpulab::GuardedDeviceArray;

namespace {

// The rules every timed step is held to (gpulab/timed_work.h): a fresh field before every sample, a sample
// of interior cells recomputed in double after it, the compulsory traffic at the device copy's bandwidth as
// the floor, and the kernels the launch ran at the technique size as the only ones allowed.
// `step` is the launch function timed (the student's kernel of that technique, or the expert's on the
// roofline) and `name` names it in messages.
gpulab::TimedWork timed_step(StepFn step, const std::string& name, const Grid& g, float r, float* d_in,
                             const float* d_out, double copy_gbs) {
    const Json& spec = section("speed");
    gpulab::TimedWork work;
    work.call = name + " at " + size_name(g);
    work.seed = gpulab::Rng::for_current_test().seed();
    gpulab::FieldOracle oracle;
    oracle.cells = g.cells();
    const std::size_t pitch = std::size_t(g.pitch());
    oracle.checked = [g, pitch](std::size_t c) {
        const std::size_t i = c % pitch, j = c / pitch;
        return i >= 1 && i <= std::size_t(g.nx) && j >= 1 && j <= std::size_t(g.ny);
    };
    const double rel = section("step").at("rel_tol"), abs = section("step").at("abs_tol");
    oracle.expected = [r, rel, abs, pitch](std::size_t c, const gpulab::FreshDraw& d) {
        const double centre = d.at(c);
        const double f = centre + double(r) * (d.at(c - 1) + d.at(c + 1) + d.at(c - pitch) + d.at(c + pitch) - 4.0 * centre);
        return gpulab::CellExpectation{f, abs + rel * std::fabs(f)};
    };
    oracle.name = [pitch](std::size_t c) { return "cell " + cell_name(int(c % pitch), int(c / pitch)); };
    oracle.always = {g.at(1, 1), g.at(g.nx, 1), g.at(1, g.ny), g.at(g.nx, g.ny)};
    // Temperatures 0.5 ... 2.5, ghost ring included, exact in float (fresh_inputs.h).
    gpulab::use_fresh_field(work, d_in, g.cells(), gpulab::FreshDraw{0, 0.5f, 1.0f / (1 << 19)}, d_out,
                            spec.at("fresh_checks"), oracle);
    gpulab::set_memory_floor(work, 8.0 * double(g.nx) * double(g.ny), copy_gbs, spec.at("floor_margin"));
    const Grid probe{section("technique").at("nx").get<int>(), section("technique").at("ny").get<int>()};
    GuardedDeviceArray<float> p_in(probe.cells()), p_out(probe.cells());
    gpulab::fill_fresh(p_in.data(), probe.cells(), gpulab::FreshDraw{1, 0.5f, 1.0f / (1 << 19)});
    work.approved = gpulab::probe_launches([&] { step(p_in.data(), p_out.data(), probe.nx, probe.ny, r); });
    gpulab::check_student_launch(name + " at " + size_name(probe));
    work.approved_at = size_name(probe);
    gpulab::name_after_timed_launch(work);  // TiledStep or NaiveStep's instance at this size (timed_geometry_checks)
    return work;
}

}  // namespace

// One speed test: checks the kernel's output at this size, then times it against the reference's
// kernel of the same technique, interleaved, and reports ms, GB/s and % of a copy.
void check_step_speed(int kernel) {
    const Json& spec = section("speed");
    const int N = spec.at("N");
    const Grid g{N, N};
    const float r = 0.2f;
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> in = random_field(rng, g);
    GuardedDeviceArray<float> d_in(g.cells()), d_student(g.cells()), d_reference(g.cells());
    d_in.upload(in);
    const StepFn mine = step_of(student(), kernel), theirs = step_of(reference(), kernel);
    const std::string call = std::string(launcher_name(kernel)) + " at " + size_name(g);

    const gpulab::TimingOptions options = gpulab::timing_options_of(spec);
    const double copy_gbs = gpulab::copy_bandwidth_gbs(g.cells() * sizeof(float), options);
    gpulab::TimedWork work = timed_step(mine, launcher_name(kernel), g, r, d_in.data(), d_student.data(), copy_gbs);
    const auto my_step = [&] { mine(d_in.data(), d_student.data(), N, N, r); };
    const auto their_step = [&] { theirs(d_in.data(), d_reference.data(), N, N, r); };

    // Speed counts only for a correct kernel, so check this size first (under the deadline).
    const std::vector<gpulab::RecordedLaunch>& launches = gpulab::first_timed_launch(work, my_step, their_step, call);
    {
        const auto result = gpulab::compare(interior_of(d_student.download(), g), expected_interior(in, g, r),
                                            interior_shape(g),
                                            {section("step").at("rel_tol"), section("step").at("abs_tol")});
        GPULAB_ASSERT(result.ok()) << result.explain(call);
    }

    const double threshold = spec.at("min_fraction_of_reference");
    const gpulab::SpeedVerdict verdict = gpulab::judge_speed(
        my_step, their_step, threshold, spec.at("max_remeasures"), options,
        {d_student.data(), g.cells() * sizeof(float)}, {d_reference.data(), g.cells() * sizeof(float)}, &work);
    const double bytes = 8.0 * double(N) * double(N);  // one read and one write per interior cell, at least
    const gpulab::Throughput throughput =
        gpulab::record_speed(verdict, bytes, copy_gbs, std::string("ref ") + kernel_name(kernel));
    GPULAB_ASSERT(verdict.honest()) << gpulab::dishonest_speed(call, verdict);
    std::string figure = throughput.figure;

    // The tiled/naive ratio, the student's and the reference's, timed together in this run; left out where
    // the student's naive launch is too slow to time (a host computation would hold this test for minutes).
    const bool naive_timeable = kernel == kTiledKernel &&
        gpulab::time_reference_once([&] { student().launch_step_naive(d_in.data(), d_student.data(), N, N, r); }) <
            gpulab::kDeadlineMultiple *
                gpulab::time_reference_once([&] { reference().launch_step_naive(d_in.data(), d_reference.data(), N, N, r); });
    if (kernel == kTiledKernel && !naive_timeable) figure += "; tiled/naive n/a (your naive kernel is too slow to time)";
    if (naive_timeable) {
        try {
            const auto samples = gpulab::time_interleaved(
                {[&] { student().launch_step_naive(d_in.data(), d_student.data(), N, N, r); },
                 [&] { mine(d_in.data(), d_student.data(), N, N, r); },
                 [&] { reference().launch_step_naive(d_in.data(), d_reference.data(), N, N, r); },
                 [&] { theirs(d_in.data(), d_reference.data(), N, N, r); }},
                options);
            const double yours = samples[1].median() / samples[0].median();
            const double refs = samples[3].median() / samples[2].median();
            testing::Test::RecordProperty("student_tiled_over_naive", fixed(yours, 2));
            testing::Test::RecordProperty("reference_tiled_over_naive", fixed(refs, 2));
            figure += "; tiled/naive time " + fixed(yours, 2) + " (ref " + fixed(refs, 2) + ")";
            std::cout << "[lab 02] tiled/naive time: yours " << fixed(yours, 2) << " (naive "
                      << fixed(samples[0].median(), 3) << " ms, tiled " << fixed(samples[1].median(), 3)
                      << " ms); reference " << fixed(refs, 2) << "\n";
        } catch (const std::exception& e) {
            figure += "; tiled/naive n/a";
            std::cout << "[lab 02] could not time your naive kernel for the tiled/naive ratio: " << e.what() << "\n";
        }
    }
    gpulab::record_figure(figure, throughput.threshold);
    // Why, from the GPU's counters on the timed launch: its MatchesOracle instance at N x N (timed_geometry_checks in
    // step_checks.cpp).
    if (!verdict.passed())
        gpulab::fail_below_bar("Your " + std::string(kernel_name(kernel)) + " step kernel",
                               "the reference's " + std::string(kernel_name(kernel)) + " kernel", verdict,
                               gpulab::speed_comparison(verdict, throughput),
                               kernel == kTiledKernel ? "TiledStep" : "NaiveStep", size_name(g), launches);
}


// Both kernels at the speed size on the roofline of this GPU (gpulab/roofline.h), beside the reference's and
// the expert's. lab.json "roofline" states a cell's cost: 7 flops (four adds, the centre's multiply by 4 and a subtraction folded into one
// of them, the multiply by r and the final add: in + r*(n + s + e + w - 4c)) and 8 compulsory bytes (one float
// read, one written; the ghost ring's reads are left out).
void report_roofline() {
    const int N = section("speed").at("N");
    const Grid g{N, N};
    const float r = 0.2f;
    GuardedDeviceArray<float> d_in(g.cells()), d_out(g.cells()), d_reference(g.cells());
    gpulab::fill_fresh(d_in.data(), g.cells(), gpulab::FreshDraw{2, 0.5f, 1.0f / (1 << 19)});
    const gpulab::TimingOptions options = gpulab::timing_options_of(section("roofline"));
    const gpulab::Roofs roofs = gpulab::measure_roofs(g.cells() * sizeof(float), options);
    const Json& roof = section("roofline");
    const double flops = roof.at("operations_per_cell").get<double>() * double(N) * N,
                 bytes = roof.at("bytes_per_cell").get<double>() * double(N) * N;
    std::vector<gpulab::RooflineKernel> kernels;
    for (int kernel : {kNaiveKernel, kTiledKernel}) {
        const StepFn mine = step_of(student(), kernel), theirs = step_of(reference(), kernel);
        auto work = std::make_shared<gpulab::TimedWork>(
            timed_step(mine, launcher_name(kernel), g, r, d_in.data(), d_out.data(), roofs.copy_gbs));
        gpulab::add_student_and_reference(kernels, kernel_name(kernel), "fp32", flops, bytes,
                                          [&, mine] { mine(d_in.data(), d_out.data(), N, N, r); },
                                          [&, theirs] { theirs(d_in.data(), d_reference.data(), N, N, r); }, work);
    }
    std::string why;
    if (const auto* expert = gpulab::expert_api<Heat2dExpertApi>(kLab, &why))
        kernels.push_back({"expert", "expert", "fp32", flops, bytes,
                           [&, expert] { expert->launch_step(d_in.data(), d_out.data(), N, N, r); },
                           std::make_shared<gpulab::TimedWork>(timed_step(expert->launch_step, "expert::launch_step", g, r,
                                                                          d_in.data(), d_out.data(), roofs.copy_gbs))});
    else
        kernels.push_back({"expert", "expert", "fp32", flops, bytes, {}, nullptr, why});
    gpulab::publish_roofline(gpulab::measure_roofline(roofs, size_name(g) + " floats", kernels, options), "[lab 02]");
}

// The expert's step in the GPU profile (gpulab/gpu_profile.h), beside the tiled kernel's timed launch (the technique
// the expert's tiling answers; the naive one's rows show the other end): the roofline's kernel at the speed size.
gpulab::TimedLaunchName expert_beside_launch() {
    const int N = section("speed").at("N");
    return {"TiledStep", size_name(Grid{N, N})};
}

}  // namespace heat_2d_grading
