#include "matmul_grading.h"

#include "oracle.h"

#include "gpulab/compare.h"
#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/fresh_inputs.h"
#include "gpulab/guarded_array.h"
#include "gpulab/parallel_for.h"
#include "gpulab/random.h"

#include <cmath>
#include <optional>

namespace matmul_grading {

namespace {
const char* const kLab = "07-matmul";
}

const MatmulApi& student() { return gpulab::lab_api<MatmulApi>(gpulab::Role::student, kLab); }
const MatmulApi& reference() { return gpulab::lab_api<MatmulApi>(gpulab::Role::reference, kLab); }
const Json& section(const char* name) { return gpulab::config_at(gpulab::lab_config(), name); }

const char* kernel_name(Kernel kernel) {
    switch (kernel) {
        case Kernel::naive: return "naive";
        case Kernel::tiled: return "tiled";
        case Kernel::naive_bt: return "naive on Bt";
        case Kernel::tiled_bt: return "tiled on Bt";
    }
    return "?";
}

const char* launch_name(Kernel kernel) {
    switch (kernel) {
        case Kernel::naive: return "launch_matmul_naive";
        case Kernel::tiled: return "launch_matmul_tiled";
        case Kernel::naive_bt: return "launch_matmul_naive_bt";
        case Kernel::tiled_bt: return "launch_matmul_tiled_bt";
    }
    return "?";
}

bool takes_bt(Kernel kernel) { return kernel == Kernel::naive_bt || kernel == Kernel::tiled_bt; }
bool is_tiled(Kernel kernel) { return kernel == Kernel::tiled || kernel == Kernel::tiled_bt; }

MatmulLaunch launcher(const MatmulApi& api, Kernel kernel) {
    switch (kernel) {
        case Kernel::naive: return api.naive;
        case Kernel::tiled: return api.tiled;
        case Kernel::naive_bt: return api.naive_bt;
        case Kernel::tiled_bt: return api.tiled_bt;
    }
    return nullptr;
}

std::string Shape::name() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }

std::vector<Shape> shapes_of(const Json& list) {
    std::vector<Shape> shapes;
    for (const Json& s : list) shapes.push_back({s.at(0).get<int>(), s.at(1).get<int>(), s.at(2).get<int>()});
    return shapes;
}

std::string call_text(Kernel kernel, const Shape& s) {
    return std::string(launch_name(kernel)) + "(m=" + std::to_string(s.m) + ", n=" + std::to_string(s.n) +
           ", k=" + std::to_string(s.k) + ")";
}

namespace {

// Uniform in +-[range/64, range]: both signs, and never so close to 0 that a term read from the wrong
// place could hide as a zero.
std::vector<float> signed_values(gpulab::Rng& rng, std::size_t count, double range) {
    std::vector<float> values(count);
    const std::uint64_t seed = rng.draw_seed();
    gpulab::parallel_for(count, [&](std::size_t, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const double magnitude = range / 64 + (range - range / 64) * gpulab::counter_uniform(seed, 2 * i);
            values[i] = float(gpulab::counter_uniform(seed, 2 * i + 1) < 0.5 ? -magnitude : magnitude);
        }
    });
    return values;
}

}  // namespace

Inputs random_inputs(gpulab::Rng& rng, const Shape& s) {
    const double range = section("correctness").value("input_range", 1.0);
    Inputs in;
    in.a = signed_values(rng, std::size_t(s.m) * s.k, range);
    in.b = signed_values(rng, std::size_t(s.k) * s.n, range);
    in.bt.resize(in.b.size());
    gpulab::parallel_for(std::size_t(s.n), [&](std::size_t, std::size_t j_begin, std::size_t j_end) {
        for (std::size_t j = j_begin; j < j_end; ++j)
            for (int e = 0; e < s.k; ++e) in.bt[j * s.k + e] = in.b[std::size_t(e) * s.n + j];
    }, 64);
    return in;
}

KernelRun run_student(Kernel kernel, const Inputs& in, const Shape& s, Fill fill) {
    const std::vector<float>& b = in.b_for(kernel);
    gpulab::GuardedDeviceArray<float> d_a(in.a.size()), d_b(b.size()), d_c(std::size_t(s.m) * s.n);
    d_a.upload(in.a);
    d_b.upload(b);
    if (fill != Fill::poison) d_c.upload(std::vector<float>(d_c.size(), fill == Fill::zeros ? 0.0f : gpulab::second_fill()));
    KernelRun run;
    {
        std::optional<gpulab::LaunchRecorder> recorder;
        if (gpulab::launch_recording_supported()) recorder.emplace();
        launcher(student(), kernel)(d_a.data(), d_b.data(), d_c.data(), s.m, s.n, s.k);
        gpulab::check_student_launch(call_text(kernel, s));
        if (recorder) run.launches = recorder->launches();
    }
    run.c = d_c.download();
    std::string problems;
    if (d_a.download() != in.a) problems += "\n  it changed A (an input: read it, never write it)";
    if (d_b.download() != b) problems += std::string("\n  it changed ") + (takes_bt(kernel) ? "Bt" : "B") + " (an input)";
    const char* names[] = {"A", takes_bt(kernel) ? "Bt" : "B", "C"};
    const gpulab::GuardReport guards[] = {d_a.check_guards(), d_b.check_guards(), d_c.check_guards()};
    for (int i = 0; i < 3; ++i)
        if (!guards[i].intact()) problems += "\n  " + guards[i].describe(names[i]);
    run.scope_problems = problems;
    return run;
}

namespace {

// The elements a spot check looks at: the four corners of C and `count` drawn from `rng`.
std::vector<std::size_t> spot_picks(const Shape& s, int count, gpulab::Rng& rng) {
    std::vector<std::size_t> picks{0, std::size_t(s.n - 1), std::size_t(s.m - 1) * s.n, std::size_t(s.m) * s.n - 1};
    for (int i = 0; i < count; ++i) picks.push_back(std::size_t(rng.uniform(0, double(s.m) * s.n)) % (std::size_t(s.m) * s.n));
    return picks;
}

std::string judge_picks(const Inputs& in, const Shape& s, const std::vector<std::size_t>& picks, const std::vector<float>& got) {
    const double factor = section("correctness").at("tolerance_factor");
    std::size_t wrong = 0;
    std::string first;
    for (std::size_t p = 0; p < picks.size(); ++p) {
        const int i = int(picks[p] / s.n), j = int(picks[p] % s.n);
        double magnitude = 0;
        const double expected = matmul_oracle::element(in.a.data(), in.b.data(), s.n, s.k, i, j, &magnitude);
        if (std::fabs(double(got[p]) - expected) <= matmul_oracle::allowed_error(magnitude, s.k, factor)) continue;
        if (++wrong == 1)
            first = "C(" + std::to_string(i) + ", " + std::to_string(j) + ") = " +
                    (gpulab::is_poison(got[p]) ? std::string("never written")
                     : std::isnan(got[p])      ? std::string("NaN (never written, or computed from an element that was)")
                                               : gpulab::num(got[p])) +
                    ", expected " + gpulab::num(expected);
    }
    if (wrong == 0) return "";
    return std::to_string(wrong) + " of " + std::to_string(picks.size()) + " elements checked are wrong, e.g. " + first;
}

}  // namespace

std::string spot_check(const Inputs& in, const std::vector<float>& c, const Shape& s, int count, gpulab::Rng& rng) {
    const std::vector<std::size_t> picks = spot_picks(s, count, rng);
    std::vector<float> got;
    for (std::size_t index : picks) got.push_back(c[index]);
    return judge_picks(in, s, picks, got);
}

std::string spot_check_device(const Inputs& in, const float* d_c, const Shape& s, int count, gpulab::Rng& rng) {
    const std::vector<std::size_t> picks = spot_picks(s, count, rng);
    std::vector<float> got;
    // Read through double: a NaN may lose its payload on the way, so the grader's poison can read as any NaN.
    for (double value : gpulab::gather_cells(d_c, picks)) got.push_back(float(value));
    return judge_picks(in, s, picks, got);
}

const char* timed_suite(Kernel kernel) {
    return kernel == Kernel::naive ? "Naive" : kernel == Kernel::tiled ? "Tiled" : kernel == Kernel::naive_bt ? "NaiveBt" : "TiledBt";
}

}  // namespace matmul_grading
