#include "speed.h"

#include "oracle.h"

#include "gpulab/cuda_check.h"
#include "gpulab/expert.h"
#include "gpulab/format.h"
#include "gpulab/gpu_profile_report.h"
#include "gpulab/grader_test.h"
#include "gpulab/launch_deadline.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/roofline.h"
#include "gpulab/speed_report.h"
#include "gpulab/timed_field.h"
#include "gpulab/timing.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>

namespace gaussian_blur_grading {

using gpulab::fixed;
using gpulab::GuardedDeviceArray;

namespace {

using BlurLaunch = std::function<void(const std::uint8_t*, std::uint8_t*, int, int, int)>;
BlurLaunch student_launch(Kernel k) {
    return [k](const std::uint8_t* in, std::uint8_t* out, int w, int h, int c) { launch(student(), k, in, out, w, h, c); };
}
std::function<std::string(int, int, int)> student_call(Kernel k) {
    return [k](int w, int h, int c) { return call_text(k, w, h, c); };
}

// The rules every timed blur is held to (gpulab/timed_work.h): a fresh image before every sample, a sample
// of output bytes recomputed exactly after it, the compulsory traffic at the device copy's bandwidth as the
// floor, and the kernels the launch ran at the technique size as the only ones allowed.
// `run` is the launch function timed (the student's, or the expert's on the roofline) and `call_at` names it at
// a size, for messages.
gpulab::TimedWork timed_blur(const BlurLaunch& run, const std::function<std::string(int, int, int)>& call_at, int w,
                             int h, int c, std::uint8_t* d_in, const std::uint8_t* d_out, double copy_gbs) {
    const Json& spec = section("speed");
    gpulab::TimedWork work;
    work.call = call_at(w, h, c);
    work.seed = gpulab::Rng::for_current_test().seed();
    const std::size_t bytes = std::size_t(w) * h * c;
    gpulab::FieldOracle oracle;
    oracle.cells = bytes;
    // Clamp-to-edge, weights 1 2 1 / 2 4 2 / 1 2 1, rounded half up: the handout's rule, byte by byte.
    oracle.expected = [w, h, c](std::size_t at, const gpulab::FreshDraw& d) {
        const int ch = int(at % c), x = int(at / c % w), y = int(at / (std::size_t(c) * w));
        int sum = 0;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int yy = std::clamp(y + dy, 0, h - 1), xx = std::clamp(x + dx, 0, w - 1);
                sum += (2 - std::abs(dx)) * (2 - std::abs(dy)) * d.byte_at((std::size_t(yy) * w + xx) * c + ch);
            }
        return gpulab::CellExpectation{double((sum + 8) >> 4), 0.0};
    };
    oracle.name = [w, c](std::size_t at) {
        return "pixel (" + std::to_string(at / c % w) + ", " + std::to_string(at / (std::size_t(c) * w)) + ") channel " +
               std::to_string(at % c);
    };
    oracle.always = {0, bytes - 1, std::size_t(w - 1) * c, bytes - std::size_t(w) * c};
    gpulab::use_fresh_field(work, d_in, bytes, gpulab::FreshDraw{}, d_out, spec.at("fresh_checks"), oracle);
    gpulab::set_memory_floor(work, 2.0 * double(bytes), copy_gbs, spec.at("floor_margin"));
    const Json& technique = section("technique");
    const int pw = technique.at("width"), ph = technique.at("height");
    GuardedDeviceArray<std::uint8_t> p_in(std::size_t(pw) * ph * c), p_out(std::size_t(pw) * ph * c);
    gpulab::fill_fresh(p_in.data(), p_in.size(), gpulab::FreshDraw{1});
    work.approved = gpulab::probe_launches([&] { run(p_in.data(), p_out.data(), pw, ph, c); });
    gpulab::check_student_launch(call_at(pw, ph, c));
    work.approved_at = std::to_string(pw) + " x " + std::to_string(ph) + " x " + std::to_string(c);
    gpulab::name_after_timed_launch(work);  // Naive or Tiled's instance at this size (timed_geometry_checks)
    return work;
}

}  // namespace

void check_speed(Kernel k) {
    const Json& spec = section("speed");
    const int w = spec.at("width"), h = spec.at("height"), c = spec.at("channels");
    auto engine = engine_for_current_test();
    const Bytes in = random_bytes(engine, std::size_t(w) * h * c);
    GuardedDeviceArray<std::uint8_t> d_in(in.size()), d_student(in.size()), d_reference(in.size());
    d_in.upload(in);

    const gpulab::TimingOptions options = gpulab::timing_options_of(spec);
    const double copy_gbs = gpulab::copy_bandwidth_gbs(in.size(), options);
    gpulab::TimedWork work = timed_blur(student_launch(k), student_call(k), w, h, c, d_in.data(), d_student.data(), copy_gbs);
    const auto mine = [&] { launch(student(), k, d_in.data(), d_student.data(), w, h, c); };
    const auto theirs = [&] { launch(reference(), k, d_in.data(), d_reference.data(), w, h, c); };

    // Speed counts only for a correct kernel, so check this size first (under the deadline).
    const std::vector<gpulab::RecordedLaunch>& launches =
        gpulab::first_timed_launch(work, mine, theirs, call_text(k, w, h, c));
    {
        const Bytes out = d_student.download();
        const Bytes expected = oracle::blur(in, w, h, c);
        check::ImageUnderTest im;
        im.what = launch_name(k) + " on a " + image_text("random", w, h, c);
        im.width = w, im.height = h, im.channels = c;
        im.input = &in, im.actual = &out, im.expected = &expected;
        im.tiled = k == Kernel::tiled;
        const check::ImageVerdict verdict = check::check_image(im, check::current_test_stem());
        GPULAB_ASSERT(verdict.ok) << verdict.explanation;
    }

    const double threshold = spec.at("min_fraction_of_reference");
    const gpulab::SpeedVerdict verdict =
        gpulab::judge_speed(mine, theirs, threshold, spec.at("max_remeasures"), options, {d_student.data(), in.size()},
                            {d_reference.data(), in.size()}, &work);
    const double bytes = 2.0 * double(in.size());  // every byte read once and written once, at least
    const gpulab::Throughput throughput = gpulab::record_speed(verdict, bytes, copy_gbs, std::string("ref ") + kernel_name(k));
    GPULAB_ASSERT(verdict.honest()) << gpulab::dishonest_speed(work.call, verdict);
    // Why, from the GPU's counters on the timed launch: its MatchesOracle instance at this size (timed_geometry_checks
    // in blur_checks.cpp).
    if (!verdict.passed())
        gpulab::fail_below_bar("Your " + std::string(kernel_name(k)) + " kernel",
                               "the throughput of the reference's " + std::string(kernel_name(k)) + " kernel on a " +
                                   image_text("random", w, h, c),
                               verdict, gpulab::speed_comparison(verdict, throughput),
                               k == Kernel::naive ? "Naive" : "Tiled",
                               std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c), launches);
}

// Each kernel at the speed size on the roofline of this GPU (gpulab/roofline.h), beside the reference's and
// the expert's. lab.json "roofline" states what a blurred byte costs: 9 multiplies and 8 adds, plus the rounding's add and shift: 19 integer
// operations, and 2 compulsory bytes (one read, one write).
void report_roofline() {
    const Json& speed = section("speed");
    const int w = speed.at("width"), h = speed.at("height"), c = speed.at("channels");
    const std::size_t n = std::size_t(w) * h * c;
    GuardedDeviceArray<std::uint8_t> d_in(n), d_out(n), d_reference(n);
    gpulab::fill_fresh(d_in.data(), n, gpulab::FreshDraw{2});
    const gpulab::TimingOptions options = gpulab::timing_options_of(section("roofline"));
    const gpulab::Roofs roofs = gpulab::measure_roofs(n, options);
    const Json& roof = section("roofline");
    const double ops = roof.at("operations_per_byte").get<double>() * double(n),
                 bytes = roof.at("bytes_per_byte").get<double>() * double(n);
    std::vector<gpulab::RooflineKernel> kernels;
    for (Kernel k : {Kernel::naive, Kernel::tiled}) {
        auto work = std::make_shared<gpulab::TimedWork>(
            timed_blur(student_launch(k), student_call(k), w, h, c, d_in.data(), d_out.data(), roofs.copy_gbs));
        gpulab::add_student_and_reference(
            kernels, kernel_name(k), "int32", ops, bytes, [&, k] { launch(student(), k, d_in.data(), d_out.data(), w, h, c); },
            [&, k] { launch(reference(), k, d_in.data(), d_reference.data(), w, h, c); }, work);
    }
    std::string why;
    if (const auto* expert = gpulab::expert_api<GaussianBlurExpertApi>(kLab, &why)) {
        const BlurLaunch run = [expert](const std::uint8_t* in, std::uint8_t* out, int ww, int hh, int cc) {
            expert->launch_blur(in, out, ww, hh, cc);
        };
        const auto call = [](int ww, int hh, int cc) {
            return "expert::launch_blur(" + std::to_string(ww) + " x " + std::to_string(hh) + " x " + std::to_string(cc) + ")";
        };
        kernels.push_back({"expert", "expert", "int32", ops, bytes, [&, run] { run(d_in.data(), d_out.data(), w, h, c); },
                           std::make_shared<gpulab::TimedWork>(
                               timed_blur(run, call, w, h, c, d_in.data(), d_out.data(), roofs.copy_gbs))});
    } else {
        kernels.push_back({"expert", "expert", "int32", ops, bytes, {}, nullptr, why});
    }
    gpulab::publish_roofline(gpulab::measure_roofline(roofs, image_text("random", w, h, c), kernels, options),
                             "[lab 03]");
}

// The expert's blur in the GPU profile (gpulab/gpu_profile.h), beside the tiled kernel's timed launch: the roofline's
// kernel at the speed size, on that launch's buffers.
gpulab::TimedLaunchName expert_beside_launch() {
    const Json& spec = section("speed");
    const int w = spec.at("width"), h = spec.at("height"), c = spec.at("channels");
    return {"Tiled", std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c)};
}

}  // namespace gaussian_blur_grading
