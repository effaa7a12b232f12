#include "speed.h"

#include "oracle.h"
#include "rod_grading.h"

#include "gpulab/compare.h"
#include "gpulab/cuda_check.h"
#include "gpulab/expert.h"
#include "gpulab/format.h"
#include "gpulab/gpu_profile_report.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/roofline.h"
#include "gpulab/speed_report.h"
#include "gpulab/timed_field.h"
#include "gpulab/timing.h"

#include <cmath>
#include <memory>

namespace heat_rod_grading {

using gpulab::fixed;
using gpulab::GuardedDeviceArray;
namespace oracle = heat_rod_oracle;

namespace {

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
    gpulab::name_after_timed_launch(work);  // Step.MatchesOracle's instance at this M (timed_geometry_checks)
    return work;
}

}  // namespace

void check_step_speed() {
    const Json& spec = section("speed");
    const int M = spec.at("M");
    const float r = 0.25f;
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> in = random_rod(rng, M);
    GuardedDeviceArray<float> d_in(M), d_student(M), d_reference(M);
    d_in.upload(in);

    const gpulab::TimingOptions options = gpulab::timing_options_of(spec);
    const double copy_gbs = gpulab::copy_bandwidth_gbs(std::size_t(M) * sizeof(float), options);
    gpulab::TimedWork work = timed_step(M, r, d_in.data(), d_student.data(), copy_gbs);
    const auto mine = [&] { student().launch_step(d_in.data(), d_student.data(), M, r); };
    const auto theirs = [&] { reference().launch_step(d_in.data(), d_reference.data(), M, r); };

    // Speed counts only for a correct kernel, so check this size first (under the deadline: a launch that
    // computes on the host must not hold the test for minutes).
    const std::vector<gpulab::RecordedLaunch>& launches = gpulab::first_timed_launch(work, mine, theirs, "launch_step");
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
    const gpulab::SpeedVerdict verdict =
        gpulab::judge_speed(mine, theirs, threshold, spec.at("max_remeasures"), options,
                            {d_student.data(), std::size_t(M) * sizeof(float)},
                            {d_reference.data(), std::size_t(M) * sizeof(float)}, &work);
    const double bytes = 8.0 * double(M - 2);  // one read and one write per interior cell, at least
    const gpulab::Throughput throughput = gpulab::record_speed(verdict, bytes, copy_gbs);
    GPULAB_ASSERT(verdict.honest()) << gpulab::dishonest_speed(work.call, verdict);
    // Why, from the GPU's counters on the timed launch: Step.MatchesOracle's instance at this M (timed_geometry_checks).
    if (!verdict.passed())
        gpulab::fail_below_bar("Your step kernel", "the reference's throughput", verdict,
                               gpulab::speed_comparison(verdict, throughput), "Step", "M" + std::to_string(M), launches);
}

// ---- Report: the roofline ----------------------------------------------------------------------------

// The step kernel at the speed size on the roofline of this GPU (gpulab/roofline.h), beside the reference's
// and the expert's. lab.json "roofline" states a cell's cost: 5 flops (in + r*(l - 2c + rt): two subtractions,
// an add, two multiplies) and 8 compulsory bytes (one float read, one written).
void report_roofline() {
    const int M = section("speed").at("M");
    const float r = 0.25f;
    GuardedDeviceArray<float> d_in(M), d_out(M), d_reference(M);
    gpulab::fill_fresh(d_in.data(), std::size_t(M), gpulab::FreshDraw{2, 0.5f, 1.0f / (1 << 19)});
    const gpulab::TimingOptions options = gpulab::timing_options_of(section("roofline"));
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
std::vector<gpulab::GeometryCheck> timed_geometry_checks() {
    const int M = section("speed").at("M");
    const std::size_t bytes = std::size_t(M) * sizeof(float);
    return std::vector<gpulab::GeometryCheck>{
        {"Step", "MatchesOracle", "M" + std::to_string(M), "launch_step at M = " + std::to_string(M), {bytes, bytes},
         [M](const std::vector<void*>& b) { student().launch_step(static_cast<float*>(b[0]), static_cast<float*>(b[1]), M, 0.25f); }}};
}

// The expert's step in the GPU profile (gpulab/gpu_profile.h): beside the timed Step launch, the one size the roofline
// times it at.
gpulab::TimedLaunchName expert_beside_launch() {
    return {"Step", "M" + std::to_string(section("speed").at("M").get<int>())};
}

}  // namespace heat_rod_grading
