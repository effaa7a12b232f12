#include "speed.h"

#include "cublas_sgemm.h"
#include "timed_product.h"

#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/gpu_profile_report.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/launch_deadline.h"
#include "gpulab/launch_geometry.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/phase_clock.h"
#include "gpulab/speed_report.h"
#include "gpulab/timing.h"

#include <iostream>
#include <optional>

namespace matmul_grading {

using gpulab::fixed;

namespace {

double tflops(const Shape& s, double ms) { return 2.0 * s.multiply_adds() / (ms * 1e9); }

// Device copies of one square problem and a C per contender.
struct Problem {
    Shape s;
    Inputs in;
    gpulab::GuardedDeviceArray<float> a, b, bt;
    explicit Problem(int n, gpulab::Rng& rng)
        : s{n, n, n}, in(random_inputs(rng, s)), a(in.a.size()), b(in.b.size()), bt(in.bt.size()) {
        a.upload(in.a);
        b.upload(in.b);
        bt.upload(in.bt);
    }
    const float* b_for(Kernel kernel) const { return takes_bt(kernel) ? bt.data() : b.data(); }
};

// Runs the student's kernel once (under the deadline `work` sets) and spot-checks C: speed counts only for a
// correct kernel. `launches`: what that launch itself shows, for a failure's diagnosis (work.checked, recorded
// around the student's launch alone; the reference's launches that set the deadline run first, unwatched). Every
// timed launch must repeat it.
bool correct_at(const Problem& p, Kernel kernel, gpulab::GuardedDeviceArray<float>& c, gpulab::TimedWork& work,
                std::vector<gpulab::RecordedLaunch>& launches) {
    gpulab::GuardedDeviceArray<float> scratch(c.size());
    gpulab::first_launch_under_deadline(
        work, [&] { launcher(student(), kernel)(p.a.data(), p.b_for(kernel), c.data(), p.s.m, p.s.n, p.s.k); },
        [&] { launcher(reference(), kernel)(p.a.data(), p.b_for(kernel), scratch.data(), p.s.m, p.s.n, p.s.k); });
    launches = work.checked;
    gpulab::check_student_launch(call_text(kernel, p.s));
    auto rng = gpulab::Rng::for_current_test();
    const std::string wrong = spot_check_device(p.in, c.data(), p.s, section("speed").at("spot_checks"), rng);
    if (wrong.empty()) return true;
    ADD_FAILURE() << call_text(kernel, p.s) << " is not right at this size (" << wrong
                  << "): speed counts only for a correct kernel.";
    return false;
}

// The rules every timed launch of this product is held to; the operands are the problem's own buffers,
// which the timing overwrites with fresh inputs before each sample.
gpulab::TimedWork work_for(const Problem& p, Kernel kernel, gpulab::GuardedDeviceArray<float>& c) {
    return timed_product(kernel, p.s, {const_cast<float*>(p.a.data()), const_cast<float*>(p.b_for(kernel)), c.data()});
}

// Why a speed test failed: the GPU's counters on the launch it timed (N x N x N), which matmul_test.cpp registers
// as a timed launch with the same call (kTimedGeometry: an instance "N<n>" of the kernel's MatchesOracle), and the
// GPU profile measures; where the counters cannot be read, what `launches` (the student's, from correct_at) show.
// Recorded as the test's "diagnosis". Only once all timing is done: the first call in a process profiles (a child
// process under ncu, seconds).
std::string speed_failure_cause(Kernel kernel, int n, const std::vector<gpulab::RecordedLaunch>& launches) {
    const std::string call = call_text(kernel, {n, n, n});
    std::string why = "not diagnosed: " + call + " is not a registered timed launch, so the GPU profile did not "
                      "measure it";
    for (const gpulab::GeometryCheck& timed : gpulab::timed_launches())
        if (timed.call == call) {
            why = gpulab::speed_diagnosis(timed.suite, timed.instance, launches);
            break;
        }
    testing::Test::RecordProperty("diagnosis", why);
    return why;
}

}  // namespace

void check_speed(Kernel kernel, int n) {
    GPULAB_REQUIRE_GPU();
    auto rng = gpulab::Rng::for_current_test();
    std::optional<gpulab::PhaseClock> phase(std::in_place, "inputs and upload");
    const Problem p(n, rng);
    gpulab::GuardedDeviceArray<float> mine(std::size_t(n) * n), theirs(std::size_t(n) * n);
    phase.emplace("timed-work setup");
    gpulab::TimedWork work = work_for(p, kernel, mine);
    phase.emplace("first launches and spot check");
    std::vector<gpulab::RecordedLaunch> launches;
    if (!correct_at(p, kernel, mine, work, launches)) return;
    phase.emplace("judge_speed");
    const MatmulLaunch student_launch = launcher(student(), kernel), reference_launch = launcher(reference(), kernel);
    const double threshold = section("speed").at("min_fraction_of_reference");
    const std::size_t bytes = std::size_t(n) * n * sizeof(float);
    const gpulab::SpeedVerdict verdict = gpulab::judge_speed(
        [&] { student_launch(p.a.data(), p.b_for(kernel), mine.data(), n, n, n); },
        [&] { reference_launch(p.a.data(), p.b_for(kernel), theirs.data(), n, n, n); }, threshold,
        section("speed").at("max_remeasures"), gpulab::timing_options_of(section("speed")), {mine.data(), bytes},
        {theirs.data(), bytes}, &work);
    phase.reset();
    testing::Test::RecordProperty("floor_ms", fixed(work.floor_ms, 4));
    if (!verdict.honest()) gpulab::record_no_speed(verdict, "fresh inputs, <= FP32 peak, the approved kernel");
    GPULAB_ASSERT(verdict.honest()) << gpulab::dishonest_speed(call_text(kernel, p.s), verdict);
    const double yours = tflops(p.s, verdict.student_ms), ref = tflops(p.s, verdict.reference_ms);
    testing::Test::RecordProperty("student_ms", fixed(verdict.student_ms, 4));
    testing::Test::RecordProperty("reference_ms", fixed(verdict.reference_ms, 4));
    testing::Test::RecordProperty("student_tflops", fixed(yours, 2));
    testing::Test::RecordProperty("reference_tflops", fixed(ref, 2));
    testing::Test::RecordProperty("rounds", std::to_string(verdict.rounds));
    gpulab::record_figure(fixed(verdict.student_ms, 3) + " ms, " + fixed(yours, 2) + " TFLOP/s, " +
                              fixed(verdict.fraction, 2) + "x ref",
                          ">= " + fixed(threshold, 2) + "x ref " + kernel_name(kernel));
    std::cout << "[lab 07] " << kernel_name(kernel) << " at N = " << n << ": yours " << fixed(verdict.student_ms, 3)
              << " ms = " << fixed(yours, 2) << " TFLOP/s; reference " << fixed(verdict.reference_ms, 3) << " ms = "
              << fixed(ref, 2) << " TFLOP/s\n";
    if (!verdict.passed())
        GPULAB_EXPECT(false) << gpulab::below_bar_message(
            "Your " + std::string(kernel_name(kernel)) + " kernel at N = " + std::to_string(n),
            "the reference's " + std::string(kernel_name(kernel)) + " kernel", verdict,
            fixed(verdict.student_ms, 3) + " ms = " + fixed(yours, 2) + " TFLOP/s against " +
                fixed(verdict.reference_ms, 3) + " ms = " + fixed(ref, 2) + " TFLOP/s",
            "", speed_failure_cause(kernel, n, launches));
}

void check_tiled_over_naive() {
    GPULAB_REQUIRE_GPU();
    const gpulab::Json& spec = section("speed").at("tiled_over_naive");
    const int n = spec.at("size");
    const double bar = spec.at("min_speedup"), margin = spec.at("reference_margin");
    auto rng = gpulab::Rng::for_current_test();
    const Problem p(n, rng);
    const std::size_t bytes = std::size_t(n) * n * sizeof(float);
    gpulab::GuardedDeviceArray<float> mine(std::size_t(n) * n), ref_tiled(std::size_t(n) * n), ref_naive(std::size_t(n) * n);
    gpulab::TimedWork work = work_for(p, Kernel::tiled, mine);
    std::vector<gpulab::RecordedLaunch> recorded;
    if (!correct_at(p, Kernel::tiled, mine, work, recorded)) return;
    const std::vector<std::function<void()>> launches{
        [&] { student().tiled(p.a.data(), p.b.data(), mine.data(), n, n, n); },
        [&] { reference().tiled(p.a.data(), p.b.data(), ref_tiled.data(), n, n, n); },
        [&] { reference().naive(p.a.data(), p.b.data(), ref_naive.data(), n, n, n); }};
    std::vector<gpulab::Samples> pooled(3);
    double yours = 0, theirs = 0;
    int rounds = 0;
    const int max_rounds = section("speed").at("max_remeasures");
    gpulab::Honesty honesty;
    do {
        const auto samples = gpulab::time_interleaved(
            launches, gpulab::timing_options_of(section("speed")), {{mine.data(), bytes}, {ref_tiled.data(), bytes}, {ref_naive.data(), bytes}},
            &work, &honesty);
        if (pooled[0].ms.empty() && work.floor_ms > 0 && samples[0].median() < work.floor_ms)
            honesty.too_fast = "Faster than this GPU can do the work: the timed launch did not compute it (" +
                               fixed(samples[0].median(), 3) + " ms, where the work takes at least " +
                               fixed(work.floor_ms, 3) + " ms: " + work.floor_basis + ").";
        for (int i = 0; i < 3; ++i) pooled[i].ms.insert(pooled[i].ms.end(), samples[i].ms.begin(), samples[i].ms.end());
        ++rounds;
        yours = pooled[2].median() / pooled[0].median();
        theirs = pooled[2].median() / pooled[1].median();
        if (!honesty.clean()) break;
        // Re-measure while the verdict is within the noise of the bar.
    } while (rounds < max_rounds && std::abs(yours / bar - 1) < 2 * (pooled[0].relative_spread() + pooled[2].relative_spread()));
    if (!honesty.clean()) gpulab::record_figure(gpulab::kNotTheWork, "fresh inputs, <= FP32 peak, the approved kernel");
    GPULAB_ASSERT(honesty.clean()) << call_text(Kernel::tiled, p.s) << " earns no speed points. " << honesty.explain();
    testing::Test::RecordProperty("student_speedup", fixed(yours, 2));
    testing::Test::RecordProperty("reference_speedup", fixed(theirs, 2));
    gpulab::record_figure(fixed(yours, 2) + "x ref naive (ref tiled: " + fixed(theirs, 2) + "x)",
                          ">= " + fixed(bar, 2) + "x, graded where ref tiled >= " + fixed(bar * margin, 2) + "x");
    std::cout << "[lab 07] tiled over naive at N = " << n << ": yours " << fixed(pooled[0].median(), 3)
              << " ms, reference tiled " << fixed(pooled[1].median(), 3) << " ms, reference naive "
              << fixed(pooled[2].median(), 3) << " ms: speedups " << fixed(yours, 2) << "x and " << fixed(theirs, 2) << "x\n";
    if (theirs < bar * margin)
        GTEST_SKIP() << "not graded on this GPU: the reference's tiled kernel is only " << fixed(theirs, 2)
                     << "x its naive kernel here, and grading a " << fixed(bar, 2) << "x bar needs the reference at "
                     << fixed(bar * margin, 2) << "x or more (yours: " << fixed(yours, 2) << "x)";
    if (!(yours >= bar)) {
        const std::string why = speed_failure_cause(Kernel::tiled, n, recorded);
        GPULAB_EXPECT(false) << "Your tiled kernel at N = " << n << " is " << fixed(yours, 2)
                             << "x as fast as the reference's naive kernel (" << fixed(pooled[0].median(), 3)
                             << " ms against " << fixed(pooled[2].median(), 3) << " ms); the reference's tiled kernel "
                             << "manages " << fixed(theirs, 2) << "x, and the bar is " << fixed(bar, 2)
                             << "x. Why: " << why;
    }
}

void report_cublas_bar() {
    GPULAB_REQUIRE_GPU();
    const int n = section("cublas").at("size");
    auto rng = gpulab::Rng::for_current_test();
    const Problem p(n, rng);
    CublasSgemm cublas;
    gpulab::GuardedDeviceArray<float> c_cublas(std::size_t(n) * n), c_yours(std::size_t(n) * n);
    cublas.multiply(p.a.data(), p.b.data(), c_cublas.data(), n, n, n);
    GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
    if (const std::string wrong = spot_check_device(p.in, c_cublas.data(), p.s, 256, rng); !wrong.empty())
        return gpulab::fail_as_grader_error("cuBLAS SGEMM does not match the oracle (" + wrong +
                                            "): check the CUDA Toolkit installation");
    std::vector<std::function<void()>> launches{[&] { cublas.multiply(p.a.data(), p.b.data(), c_cublas.data(), n, n, n); }};
    bool yours_ok = false;
    try {
        // A launch that computes on the host would hold this report for minutes: it gets what a speed test gets.
        const double reference_ms =
            gpulab::time_reference_once([&] { reference().tiled(p.a.data(), p.b.data(), c_yours.data(), n, n, n); });
        const double limit = gpulab::deadline_ms(reference_ms);
        gpulab::LaunchDeadline deadline(limit, gpulab::too_slow_message(call_text(Kernel::tiled, p.s), limit, reference_ms));
        student().tiled(p.a.data(), p.b.data(), c_yours.data(), n, n, n);
        cudaDeviceSynchronize();
        gpulab::check_student_launch(call_text(Kernel::tiled, p.s));
        yours_ok = spot_check_device(p.in, c_yours.data(), p.s, 64, rng).empty();
    } catch (const gpulab::CudaError& e) {
        if (gpulab::is_sticky_cuda_error(e.status())) throw;
    }
    if (yours_ok) launches.push_back([&] { student().tiled(p.a.data(), p.b.data(), c_yours.data(), n, n, n); });
    const auto samples = gpulab::time_interleaved(launches, gpulab::timing_options_of(section("speed")));
    const double cublas_tflops = tflops(p.s, samples[0].median());
    const double peak = fp32_peak_tflops();
    std::string figure = "cuBLAS " + fixed(samples[0].median(), 3) + " ms, " + fixed(cublas_tflops, 1) + " TFLOP/s";
    if (peak > 0) figure += " (" + fixed(100 * cublas_tflops / peak, 0) + "% of FP32 peak " + fixed(peak, 1) + ")";
    if (yours_ok) {
        const double yours = tflops(p.s, samples[1].median());
        figure += "; your tiled " + fixed(yours, 2) + " TFLOP/s = " + fixed(100 * yours / cublas_tflops, 0) + "% of cuBLAS";
        testing::Test::RecordProperty("student_tflops", fixed(yours, 2));
    } else {
        figure += "; your tiled kernel is not right at this size, so it was not timed";
    }
    testing::Test::RecordProperty("cublas_tflops", fixed(cublas_tflops, 2));
    testing::Test::RecordProperty("fp32_peak_tflops", fixed(peak, 1));
    testing::Test::RecordProperty("cublas_math_mode", CublasSgemm::math_mode());
    gpulab::record_figure(figure, std::string("report; ") + CublasSgemm::math_mode());
    std::cout << "[lab 07] at N = " << n << ", " << CublasSgemm::math_mode() << ": " << figure << "\n";
}

}  // namespace matmul_grading
