#include "reports.h"

#include "solve_check.h"
#include "square_grading.h"

#include "gpulab/device_facts.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/image.h"
#include "gpulab/plot.h"
#include "gpulab/speed_report.h"
#include "gpulab/timing.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

namespace heat_2d_grading {

using gpulab::fixed;
using gpulab::GuardedDeviceArray;
using gpulab::sci;

namespace {


// A field's interior as rows for the heat-maps plot (gpulab_plot.py): the bottom row (j = 1) first,
// 7 significant digits (plenty for a picture), NaN and infinities as null. Ordered JSON, so that a person
// who opens the file reads its fields in the order they were written.
using PlotJson = nlohmann::ordered_json;
PlotJson picture_rows(const std::vector<float>& f, const Grid& g) {
    PlotJson rows = PlotJson::array();
    for (int j = 1; j <= g.ny; ++j) {
        PlotJson row = PlotJson::array();
        for (int i = 1; i <= g.nx; ++i) {
            const float value = f[g.at(i, j)];
            if (!std::isfinite(value)) {
                row.push_back(nullptr);
                continue;
            }
            char digits[32];
            std::snprintf(digits, sizeof digits, "%.7g", double(value));
            row.push_back(std::strtod(digits, nullptr));
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

// What a report says when its picture was not drawn: why, and where its numbers are all the same.
std::string not_drawn(const gpulab::PlotOutcome& plot, const std::string& data_path) {
    return "not drawn: " + plot.skipped_because + " (the numbers are in " + data_path + ")";
}

}  // namespace

// The handout's solve, in stretches of `every` time units, each frame drawn as a heat map.
void report_snapshots() {
    const Json& spec = section("snapshots");
    const SolveCase c = solve_case("gaussian");
    const double every = spec.at("every");
    const int kernel = spec.at("kernel") == "naive" ? kNaiveKernel : kTiledKernel;
    const int frames = int(std::lround(c.tmax / every));
    const double tol = section("solve").at("rel_l2_tol");

    // One colour scale for every frame, the start's range, so the pictures show the heat evening out.
    const std::vector<double> inner0 = interior_of(c.start, c.g);
    const auto [lo, hi] = std::minmax_element(inner0.begin(), inner0.end());
    const std::string dir = gpulab::artifact_dir(), data_path = dir + "/heat2d_snapshots.json";
    const auto frame_path = [&](double t, const char* suffix) { return dir + "/heat2d_t" + fixed(t, 2) + suffix + ".png"; };
    PlotJson pictures = PlotJson::array();
    std::ostringstream written, problems;
    const auto add_picture = [&](const std::vector<float>& field, double t, bool expected) {
        const std::string png = frame_path(t, expected ? "_expected" : "");
        pictures.push_back({{"t", t}, {"png", png}, {"expected", expected}, {"values", picture_rows(field, c.g)}});
        return png;
    };

    std::vector<float> f = oracle::narrow(c.start);
    std::vector<double> expected = oracle::widen(f);
    written << add_picture(f, 0, false);
    double worst = 0;
    for (int frame = 1; frame <= frames; ++frame) {
        const double t = frame * every;
        const int steps = student().solve(f.data(), c.g.nx, c.g.ny, c.k, c.h, every, kernel);
        const int want_steps = oracle::steps_to(c.k, c.h, every);
        expected = oracle::integrate(expected, c.g, c.k * (every / want_steps) / (c.h * c.h), want_steps);
        const double error = rel_l2_without_corners(f, expected, c.g);
        worst = std::max(worst, std::isfinite(error) ? error : INFINITY);
        written << "\n    " << add_picture(f, t, false);
        if (steps != want_steps || !(error <= tol)) {
            problems << "\n  t = " << fixed(t, 2) << ": " << steps << " steps (expected " << want_steps
                     << "), relative L2 error " << sci(error) << " (allowed " << sci(tol, 0) << "); what it should look like: "
                     << add_picture(oracle::narrow(expected), t, true);
        }
        // Carry on from the right answer, so each frame shows that stretch's own error.
        f = oracle::narrow(expected);
    }
    const std::string title = "Heat on an insulated square (" + std::string(kernel_name(kernel)) + " kernel, " +
                              std::to_string(c.g.nx) + " \u00d7 " + std::to_string(c.g.ny) + " cells)";
    std::ofstream(data_path) << PlotJson{{"nx", c.g.nx}, {"ny", c.g.ny}, {"range", {*lo, *hi}}, {"title", title},
                                     {"x_label", "x (cell index i)"}, {"y_label", "y (cell index j)"},
                                     {"value_label", "temperature"}, {"frames", pictures}}
                                       .dump();
    const gpulab::PlotOutcome plot = gpulab::draw_plot("heat-maps", data_path);
    if (plot.drawn_or_queued()) {
        std::cout << "[lab 02] heat maps of the handout's solve (" << kernel_name(kernel) << " kernel, " << c.g.nx
                  << " x " << c.g.ny << " cells; one colour scale for every frame, " << fixed(*lo, 3) << " to "
                  << fixed(*hi, 3) << "; magenta = NaN or infinite):\n    " << written.str() << "\n";
        testing::Test::RecordProperty("pictures", written.str());
    } else {
        std::cout << "[lab 02] heat maps " << not_drawn(plot, data_path) << "\n" << plot.output;
        testing::Test::RecordProperty("pictures", not_drawn(plot, data_path));
    }
    testing::Test::RecordProperty("artifacts", dir);
    gpulab::record_figure((plot.drawn_or_queued() ? std::to_string(pictures.size()) + " heat maps drawn"
                                      : "heat maps " + not_drawn(plot, data_path)) +
                              ", worst rel L2 " + sci(worst),
                          "report; each frame <= " + sci(tol, 0));
    GPULAB_EXPECT(problems.str().empty()) << "The snapshots of the handout's solve (solve called with tmax = "
                                          << every << " from each frame to the next, " << kernel_name(kernel)
                                          << " kernel) do not match the oracle:" << problems.str();
}

// Time per step (step kernel + boundary kernel) for growing M x M grids, both of the student's
// kernels: a table in the log, a CSV and a log-log plot of it in the artifacts folder.
void report_scaling_study() {
    const Json& spec = section("scaling");
    const Json& gaussian = gpulab::config_at(section("solve"), "gaussian");
    const double k = gaussian.at("k"), length = gaussian.at("length"), tmax = gaussian.at("tmax");
    const gpulab::TimingOptions options = gpulab::timing_options_of(spec);
    const std::string dir = gpulab::artifact_dir();
    const std::string csv_path = dir + "/heat2d_scaling.csv", png_path = dir + "/heat2d_scaling.png";
    std::ofstream csv(csv_path);
    csv << "M,cells,naive_ms_per_step,tiled_ms_per_step,naive_gbs,tiled_gbs,steps_to_tmax,naive_solve_s,tiled_solve_s\n";
    std::ostringstream table;
    table << "      M        cells   naive ms/step   tiled ms/step   naive GB/s   tiled GB/s   steps to t=" << tmax
          << "   naive solve   tiled solve\n";
    std::vector<double> ms_naive, ms_tiled, sizes;
    for (int M : spec.at("sizes")) {
        const Grid g{M, M};
        auto rng = gpulab::Rng::for_current_test();
        GuardedDeviceArray<float> a(g.cells()), b(g.cells());
        a.upload(random_insulated_field(rng, g));
        const auto samples = gpulab::time_interleaved(
            {[&] {
                 student().launch_step_naive(a.data(), b.data(), M, M, 0.2f);
                 student().launch_boundary(b.data(), M, M);
             },
             [&] {
                 student().launch_step_tiled(a.data(), b.data(), M, M, 0.2f);
                 student().launch_boundary(b.data(), M, M);
             }},
            options);
        double naive = samples[0].median(), tiled = samples[1].median();
        const double cells = double(M) * M, bytes = 8.0 * cells;
        // No figure above what the GPU can move: a device copy of the same size, with the floor's margin where
        // the field is far larger than L2 and four times that where it may stay in L2. A launch that fast
        // remembered its answer instead of computing it; it is left out of the table (NaN).
        const double copy_gbs = gpulab::copy_bandwidth_gbs(g.cells() * sizeof(float), options);
        const double limit_gbs = copy_gbs * (M >= 2048 ? double(section("speed").at("floor_margin")) : 4.0);
        if (bytes / (naive * 1e6) > limit_gbs) naive = NAN;
        if (bytes / (tiled * 1e6) > limit_gbs) tiled = NAN;
        const int steps = oracle::steps_to(k, length / M, tmax);
        sizes.push_back(M);
        ms_naive.push_back(naive);
        ms_tiled.push_back(tiled);
        csv << M << "," << std::llround(cells) << "," << naive << "," << tiled << "," << bytes / (naive * 1e6) << ","
            << bytes / (tiled * 1e6) << "," << steps << "," << steps * naive / 1e3 << "," << steps * tiled / 1e3 << "\n";
        char line[256];
        std::snprintf(line, sizeof line, "%7d %12.0f %15.4f %15.4f %12.0f %12.0f %14d %12.3g s %12.3g s\n", M, cells,
                      naive, tiled, bytes / (naive * 1e6), bytes / (tiled * 1e6), steps, steps * naive / 1e3,
                      steps * tiled / 1e3);
        table << line;
    }
    csv.close();
    const gpulab::PlotOutcome plot =
        gpulab::draw_plot("heat2d-scaling", csv_path, {"--out", png_path, "--title", gpulab::device_facts().name});
    std::cout << "[lab 02] scaling study: time per step (your step kernel + your boundary kernel), median of "
              << options.samples << "\n"
              << table.str() << "[lab 02] written: " << csv_path << "\n";
    if (plot.drawn_or_queued()) std::cout << "[lab 02] plot (log-log, ms per step against M): " << png_path << "\n";
    else std::cout << "[lab 02] plot " << not_drawn(plot, csv_path) << "\n" << plot.output;
    testing::Test::RecordProperty("pictures", plot.drawn_or_queued() ? png_path : not_drawn(plot, csv_path));
    testing::Test::RecordProperty("scaling_table", table.str());
    testing::Test::RecordProperty("artifacts", dir);
    gpulab::record_figure("naive " + fixed(ms_naive.back(), 3) + " ms, tiled " + fixed(ms_tiled.back(), 3) +
                              " ms a step at M = " + std::to_string(int(sizes.back())) + "; table in " + csv_path,
                          "report only");
}

}  // namespace heat_2d_grading
