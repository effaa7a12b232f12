#include "speed.h"

#include "oracle.h"
#include "timed_technique.h"

#include "gpulab/cuda_check.h"
#include "gpulab/expert.h"
#include "gpulab/format.h"
#include "gpulab/gpu_profile_report.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/phase_clock.h"
#include "gpulab/random.h"
#include "gpulab/roofline.h"
#include "gpulab/speed_report.h"
#include "gpulab/timed_field.h"
#include "gpulab/timing.h"

#include <functional>
#include <iostream>
#include <optional>
#include <sstream>

namespace stencil3d_grading {

using gpulab::fixed;

std::vector<StencilCase> speed_cases() {
    std::vector<StencilCase> cases;
    for (const gpulab::Json& c : section("speed").at("cases"))
        cases.push_back({grid_of(c), c.at(3) == "double" ? Precision::f64 : Precision::f32});
    return cases;
}

namespace {

// What one call of `launch` launched, recorded as it ran.
template <typename T>
std::vector<gpulab::RecordedLaunch> recorded_launches(StencilLaunch<T> launch, const T* d_in, T* d_out, const Grid3& g,
                                                const Coeffs<T>& c) {
    gpulab::LaunchRecorder recorder;
    launch(d_in, d_out, g.nx, g.ny, g.nz, c);
    GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
    return recorder.launches();
}

// The kernel's compiled resources, from the first recorded launch: "8192 B shared, 32 regs".
std::string resources_text(const std::vector<gpulab::RecordedLaunch>& launches) {
    if (launches.empty()) return "no launch";
    const gpulab::RecordedLaunch& l = launches.front();
    std::string text = std::to_string(l.shared_bytes()) + " B shared/block, " + std::to_string(l.registers) + " regs/thread";
    if (l.local_bytes) text += ", " + std::to_string(l.local_bytes) + " B local";
    return text;
}

template <typename T>
std::string resources_of(StencilLaunch<T> launch, const T* d_in, T* d_out, const Grid3& g, const Coeffs<T>& c) {
    return resources_text(recorded_launches(launch, d_in, d_out, g, c));
}

// The rules every timed sweep is held to (gpulab/timed_work.h): a fresh field before every sample, a sample
// of interior cells recomputed in double after it, the compulsory traffic at the device copy's bandwidth as
// the floor, and the kernels the launch ran at the technique size as the only ones allowed.
// `run` is the launch function timed: the student's kernel of technique t where null, else the expert's on
// the roofline (then `name` names it).
template <typename T>
gpulab::TimedWork timed_sweep(Technique t, Precision precision, const Grid3& g, const Coeffs<double>& c, T* d_in,
                              const T* d_out, double copy_gbs, StencilLaunch<T> run = nullptr,
                              const std::string& name = "") {
    const gpulab::Json& spec = section("speed");
    gpulab::TimedWork work;
    const auto called = [&](const Grid3& at) { return run ? name + " at " + at.name() : call_name(t, precision, at); };
    work.call = called(g);
    work.seed = gpulab::Rng::for_current_test().seed();
    gpulab::FieldOracle oracle;
    oracle.cells = g.cells();
    oracle.checked = [g](std::size_t i) {
        return g.interior(int(i % g.nx), int(i / g.nx % g.ny), int(i / (std::size_t(g.nx) * g.ny)));
    };
    const double rel = tolerance_of(precision);
    oracle.expected = [g, c, rel](std::size_t i, const gpulab::FreshDraw& d) {
        const std::size_t row = std::size_t(g.nx), plane = row * std::size_t(g.ny);
        const double terms[7] = {c.c0 * d.at(i),       c.c1 * d.at(i - 1),   c.c2 * d.at(i + 1), c.c3 * d.at(i - row),
                                 c.c4 * d.at(i + row), c.c5 * d.at(i - plane), c.c6 * d.at(i + plane)};
        double sum = 0, magnitude = 0;
        for (double term : terms) sum += term, magnitude += std::fabs(term);
        return gpulab::CellExpectation{sum, rel * magnitude};
    };
    oracle.name = [g](std::size_t i) {
        return "cell " + cell_name(int(i % g.nx), int(i / g.nx % g.ny), int(i / (std::size_t(g.nx) * g.ny)));
    };
    oracle.always = {g.at(1, 1, 1), g.at(g.nx - 2, g.ny - 2, g.nz - 2), g.at(g.nx - 2, 1, 1), g.at(1, g.ny - 2, g.nz - 2)};
    gpulab::use_fresh_field(work, d_in, g.cells(), gpulab::FreshDraw{}, d_out, spec.at("fresh_checks"), oracle);
    gpulab::set_memory_floor(work, 2.0 * double(g.cells()) * sizeof(T), copy_gbs, spec.at("floor_margin"));
    const Grid3 probe = grid_of(section("technique").at("size"));
    gpulab::GuardedDeviceArray<T> p_in(probe.cells()), p_out(probe.cells());
    gpulab::fill_fresh(p_in.data(), probe.cells(), gpulab::FreshDraw{1});
    const StencilLaunch<T> mine = run ? run : student().of(t).template get<T>();
    const Coeffs<T> ct = oracle::narrow<T>(c);
    work.approved = gpulab::probe_launches([&] { mine(p_in.data(), p_out.data(), probe.nx, probe.ny, probe.nz, ct); });
    gpulab::check_student_launch(called(probe));
    work.approved_at = probe.name();
    gpulab::name_after_timed_launch(work);  // the technique's instance at this size and precision (timed_geometry_checks)
    return work;
}

// The weights of a timed launch, from the run's seed and the call: the speed test and every count of its launch
// (timed_geometry_checks, which the technique tests count) pass the same arguments.
Coeffs<double> timed_coefficients(Technique t, const StencilCase& param) {
    gpulab::Rng rng(gpulab::run_seed() ^ (std::hash<std::string>{}(call_name(t, param.precision, param.g)) * 0x9E3779B97F4A7C15ull));
    return oracle::distinct_coefficients(rng);
}

template <typename T>
void speed(Technique t, const StencilCase& param) {
    const gpulab::Json& spec = section("speed");
    const Grid3 g = param.g;
    auto rng = gpulab::Rng::for_current_test();
    const Coeffs<double> c = timed_coefficients(t, param);
    const Coeffs<T> ct = oracle::narrow<T>(c);
    std::optional<gpulab::PhaseClock> phase(std::in_place, "inputs on the host");
    const std::vector<T> in = oracle::random_field<T>(rng, g);
    phase.emplace("device arrays and upload");
    gpulab::GuardedDeviceArray<T> d_in(g.cells()), d_student(g.cells()), d_reference(g.cells());
    d_in.upload(in);
    phase.emplace("copy bandwidth and timed-work setup");
    const StencilLaunch<T> mine = student().of(t).get<T>(), theirs = reference().of(t).get<T>();
    const std::string call = call_name(t, param.precision, g);

    const gpulab::TimingOptions options = gpulab::timing_options_of(spec);
    const std::size_t bytes_out = g.cells() * sizeof(T);
    const double copy_gbs = gpulab::copy_bandwidth_gbs(bytes_out, options);
    gpulab::TimedWork work = timed_sweep<T>(t, param.precision, g, c, d_in.data(), d_student.data(), copy_gbs);

    phase.emplace("first launches");
    // Speed counts only for a correct kernel: check this size first (under the deadline). Every timed launch must
    // repeat this one (work.checked).
    gpulab::first_launch_under_deadline(work, [&] { mine(d_in.data(), d_student.data(), g.nx, g.ny, g.nz, ct); },
                                        [&] { theirs(d_in.data(), d_reference.data(), g.nx, g.ny, g.nz, ct); });
    try {
        gpulab::check_student_launch(call);
    } catch (const gpulab::CudaError& e) {
        GPULAB_ASSERT(false) << e.what();
    }
    phase.emplace("full check on the host");
    {
        const OutputReport report = inspect_output(d_student.download(), in, g, c, tolerance_of(param.precision), call);
        GPULAB_ASSERT(report.ok()) << report.summary;
    }
    phase.emplace("resources");
    const std::vector<gpulab::RecordedLaunch> launches = recorded_launches(mine, d_in.data(), d_student.data(), g, ct);
    const std::string resources = resources_text(launches);
    const std::string reference_resources = resources_of(theirs, d_in.data(), d_reference.data(), g, ct);

    phase.emplace("judge_speed");
    const double threshold = spec.at("min_fraction_of_reference");
    const gpulab::SpeedVerdict verdict = gpulab::judge_speed(
        [&] { mine(d_in.data(), d_student.data(), g.nx, g.ny, g.nz, ct); },
        [&] { theirs(d_in.data(), d_reference.data(), g.nx, g.ny, g.nz, ct); }, threshold, spec.at("max_remeasures"),
        options, {d_student.data(), bytes_out}, {d_reference.data(), bytes_out}, &work);
    phase.reset();
    const double bytes = 2.0 * double(bytes_out);  // each cell read once and written once, at least
    const gpulab::Throughput throughput =
        gpulab::record_speed(verdict, bytes, copy_gbs, std::string("ref ") + technique_name(t));
    GPULAB_ASSERT(verdict.honest()) << gpulab::dishonest_speed(call, verdict);
    const double gstencils = double(g.interior_cells()) / (verdict.student_ms * 1e6);
    testing::Test::RecordProperty("student_gstencil_per_s", fixed(gstencils, 1));
    testing::Test::RecordProperty("student_resources", resources);
    testing::Test::RecordProperty("reference_resources", reference_resources);
    gpulab::record_figure(throughput.figure + ", " + fixed(gstencils, 1) + " GStencil/s; " + resources,
                          throughput.threshold);
    std::cout << "[stencil3d] " << call << ": yours " << fixed(verdict.student_ms, 3) << " ms, "
              << fixed(throughput.student_gbs, 0) << " GB/s, " << fixed(gstencils, 1) << " GStencil/s (" << resources
              << "); reference " << fixed(verdict.reference_ms, 3) << " ms (" << reference_resources << "); copy "
              << fixed(copy_gbs, 0) << " GB/s\n";
    // Why, from the GPU's counters on the timed launch: its MatchesOracle instance at this size and precision
    // (timed_geometry_checks below).
    if (!verdict.passed())
        gpulab::fail_below_bar("Your " + std::string(technique_name(t)) + " kernel (" +
                                   precision_name(param.precision) + ", " + g.name() + ")",
                               "the reference's " + std::string(technique_name(t)) + " kernel", verdict,
                               gpulab::speed_comparison(verdict, throughput), timed_suite(t),
                               g.name() + "_" + precision_name(param.precision), launches,
                               "Yours: " + resources + "; the reference's: " + reference_resources + ". ");
}

// The roofline (Report.Roofline): the lab's own kernels, the reference's of the same techniques and the expert
// stencil at the first speed case, in float. A cell costs lab.json's roofline.operations_per_cell: 13 flops (7 multiplies, 6 adds) and 2 x sizeof(T)
// compulsory bytes (one read, one write).
template <typename T>
void roofline(const StencilCase& param) {
    const Grid3 g = param.g;
    auto rng = gpulab::Rng::for_current_test();
    const Coeffs<double> c = oracle::distinct_coefficients(rng);
    const Coeffs<T> ct = oracle::narrow<T>(c);
    gpulab::GuardedDeviceArray<T> d_in(g.cells()), d_out(g.cells()), d_reference(g.cells());
    gpulab::fill_fresh(d_in.data(), g.cells(), gpulab::FreshDraw{2});
    const gpulab::TimingOptions options = gpulab::timing_options_of(section("roofline"));
    const gpulab::Roofs roofs = gpulab::measure_roofs(g.cells() * sizeof(T), options);
    const double flops = section("roofline").at("operations_per_cell").get<double>() * double(g.interior_cells()),
                 bytes = 2.0 * double(g.cells()) * sizeof(T);
    const char* arithmetic = sizeof(T) == sizeof(float) ? "fp32" : "fp64";
    std::vector<gpulab::RooflineKernel> kernels;
    for (int k = 0; k < kTechniques; ++k) {
        const Technique t = Technique(k);
        const StencilLaunch<T> mine = student().of(t).template get<T>(), theirs = reference().of(t).template get<T>();
        if (!mine || !theirs) continue;
        auto work = std::make_shared<gpulab::TimedWork>(timed_sweep<T>(t, param.precision, g, c, d_in.data(), d_out.data(), roofs.copy_gbs));
        gpulab::add_student_and_reference(
            kernels, technique_name(t), arithmetic, flops, bytes, [&, mine] { mine(d_in.data(), d_out.data(), g.nx, g.ny, g.nz, ct); },
            [&, theirs] { theirs(d_in.data(), d_reference.data(), g.nx, g.ny, g.nz, ct); }, work);
    }
    std::string why;
    const std::string lab = gpulab::lab_config().at("lab");
    if (const auto* expert = gpulab::expert_api<Stencil3dExpertApi>(lab, &why)) {
        const StencilLaunch<T> run = expert->stencil.template get<T>();
        kernels.push_back({"expert", "expert", arithmetic, flops, bytes,
                           [&, run] { run(d_in.data(), d_out.data(), g.nx, g.ny, g.nz, ct); },
                           std::make_shared<gpulab::TimedWork>(timed_sweep<T>(Technique::naive, param.precision, g, c,
                                                                              d_in.data(), d_out.data(), roofs.copy_gbs,
                                                                              run, "expert::launch_stencil3d"))});
    } else {
        kernels.push_back({"expert", "expert", arithmetic, flops, bytes, {}, nullptr, why});
    }
    gpulab::publish_roofline(gpulab::measure_roofline(roofs, g.name() + " " + precision_name(param.precision), kernels, options),
                             "[stencil3d]");
}

// The speed test's call at one timed size: the same launch function, sizes, buffer sizes and weights
// (timed_coefficients), so what the technique tests count of it is what the speed test times.
// The timed launch's instance name: "512x512x512_float".
std::string timed_instance(const StencilCase& c) { return c.g.name() + "_" + precision_name(c.precision); }

template <typename T>
gpulab::GeometryCheck geometry_check(Technique t, const char* suite, const StencilCase& c) {
    const Grid3 g = c.g;
    const Coeffs<T> weights = oracle::narrow<T>(timed_coefficients(t, c));
    return {suite, "MatchesOracle", timed_instance(c), call_name(t, c.precision, g),
            {g.cells() * sizeof(T), g.cells() * sizeof(T)}, [t, g, weights](const std::vector<void*>& b) {
                student().of(t).get<T>()(static_cast<const T*>(b[0]), static_cast<T*>(b[1]), g.nx, g.ny, g.nz, weights);
            }};
}

// One row of the progression table.
struct Row {
    Technique technique;
    std::string whose;  // "yours" or "reference"
    StencilLaunchers launchers;
};

// The reference kernel of each technique: this lab's reference where it has one, else the lab that teaches it.
std::vector<Row> progression_rows(std::ostringstream& missing) {
    std::vector<Row> rows;
    for (int k = 0; k < kTechniques; ++k) {
        const Technique t = Technique(k);
        if (student().of(t).f32) rows.push_back({t, "yours", student().of(t)});
        if (reference().of(t).f32) {
            rows.push_back({t, "reference", reference().of(t)});
            continue;
        }
        try {
            rows.push_back({t, "reference", gpulab::companion_api<Stencil3dApi>(lab_of(t)).of(t)});
        } catch (const std::exception& e) {
            missing << "\n  " << technique_name(t) << ": not timed (" << e.what() << ")";
        }
    }
    return rows;
}

template <typename T>
std::string progression_table(const Grid3& g, const std::vector<Row>& rows, const gpulab::TimingOptions& options) {
    auto rng = gpulab::Rng::for_current_test();
    const Coeffs<double> c = oracle::distinct_coefficients(rng);
    const Coeffs<T> ct = oracle::narrow<T>(c);
    std::optional<gpulab::PhaseClock> phase(std::in_place, "progression: inputs and upload");
    const std::vector<T> in = oracle::random_field<T>(rng, g);
    gpulab::GuardedDeviceArray<T> d_in(g.cells()), d_out(g.cells());
    d_in.upload(in);
    phase.emplace("progression: resources and checks");
    std::vector<std::function<void()>> launches;
    std::vector<std::string> notes;
    for (const Row& row : rows) {
        const StencilLaunch<T> launch = row.launchers.get<T>();
        launches.push_back([=, &d_in, &d_out] { launch(d_in.data(), d_out.data(), g.nx, g.ny, g.nz, ct); });
        std::string note = resources_of(launch, d_in.data(), d_out.data(), g, ct);
        if (row.whose == "yours" &&
            !inspect_output(d_out.download(), in, g, c, tolerance_of(precision_of<T>()), "")
                 .ok())
            note += "; WRONG OUTPUT";
        notes.push_back(note);
    }
    phase.emplace("progression: timing");
    const std::vector<gpulab::Samples> samples = gpulab::time_interleaved(launches, options);
    const double copy_gbs = gpulab::copy_bandwidth_gbs(g.cells() * sizeof(T), options);
    phase.reset();
    double naive_ms = 0;
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].technique == Technique::naive && rows[i].whose == "reference") naive_ms = samples[i].median();
    std::ostringstream table;
    table << "  " << precision_name(precision_of<T>()) << ", " << g.name() << " (copy: " << fixed(copy_gbs, 0)
          << " GB/s)\n"
          << "  technique        whose          ms     GB/s  GStencil/s  % of copy  vs ref naive  resources\n";
    const double margin = section("speed").at("floor_margin");
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const double ms = samples[i].median();
        const double gbs = 2.0 * double(g.cells() * sizeof(T)) / (ms * 1e6);
        char line[256];
        if (gbs > margin * copy_gbs) {
            // No figure above what the GPU can move: the launch did not compute the sweep (it remembered it).
            std::snprintf(line, sizeof line, "  %-16s %-10s %8s %8s %11s %10s %12s  %s\n", technique_name(rows[i].technique),
                          rows[i].whose.c_str(), "-", "-", "-", "-", "-",
                          "faster than this GPU can move the data: not the work");
            table << line;
            continue;
        }
        std::snprintf(line, sizeof line, "  %-16s %-10s %8.3f %8.0f %11.1f %9.0f%% %12s  %s\n", technique_name(rows[i].technique),
                      rows[i].whose.c_str(), ms, gbs, double(g.interior_cells()) / (ms * 1e6), 100 * gbs / copy_gbs,
                      naive_ms > 0 ? (fixed(naive_ms / ms, 2) + "x").c_str() : "n/a", notes[i].c_str());
        table << line;
    }
    return table.str();
}

}  // namespace

void check_speed(Technique t, const StencilCase& c) {
    GPULAB_REQUIRE_GPU();
    if (c.precision == Precision::f32) speed<float>(t, c);
    else speed<double>(t, c);
}

std::vector<gpulab::GeometryCheck> timed_geometry_checks(Technique t, const char* suite) {
    std::vector<gpulab::GeometryCheck> checks;
    for (const StencilCase& c : speed_cases())
        checks.push_back(c.precision == Precision::f64 ? geometry_check<double>(t, suite, c) : geometry_check<float>(t, suite, c));
    return checks;
}

// One timed size only (gpu_profile.h says why): the roofline's, the first float case (512^3 float in the three labs;
// the 449^3 and double cases would replay the same kernel under ncu for figures the first already shows), with the
// timed launch's weights.
gpulab::TimedLaunchName expert_beside_launch(const char* suite) {
    for (const StencilCase& c : speed_cases())
        if (c.precision == Precision::f32) return {suite, timed_instance(c)};
    return {};
}

bool register_timed_launches(std::vector<TimedSuite> suites, const char* expert_beside) {
    gpulab::add_geometry_checks([suites] {
        std::vector<gpulab::GeometryCheck> checks;
        for (const TimedSuite& s : suites)
            for (gpulab::GeometryCheck& check : timed_geometry_checks(s.technique, s.suite)) checks.push_back(std::move(check));
        return with_timed_draws(std::move(checks));  // their buffers as the speed test draws them
    });
    return gpulab::set_expert_beside([expert_beside] { return expert_beside_launch(expert_beside); });
}

void report_progression() {
    GPULAB_REQUIRE_GPU();
    const gpulab::Json& spec = section("progression");
    std::ostringstream missing;
    const std::vector<Row> rows = progression_rows(missing);
    std::string tables;
    for (const gpulab::Json& size : spec.at("cases")) {
        const Grid3 g = grid_of(size);
        tables += size.at(3) == "double" ? progression_table<double>(g, rows, gpulab::timing_options_of(spec))
                                         : progression_table<float>(g, rows, gpulab::timing_options_of(spec));
    }
    std::cout << "[stencil3d] the progression the labs teach (median of " << spec.at("samples").get<int>()
              << " interleaved launches each; GB/s counts one read and one write of every cell):\n"
              << tables << missing.str() << (missing.str().empty() ? "" : "\n");
    testing::Test::RecordProperty("progression_table", tables);
    gpulab::record_figure(std::to_string(rows.size()) + " kernels timed; table in the log", "report only");
}

void report_roofline() {
    GPULAB_REQUIRE_GPU();
    const std::vector<StencilCase> cases = speed_cases();
    roofline<float>(cases.front().precision == Precision::f32 ? cases.front() : StencilCase{cases.front().g, Precision::f32});
}

}  // namespace stencil3d_grading
