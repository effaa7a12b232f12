// The roofline report's outputs (gpulab/roofline.h): the log's table, roofline.json and .png in the artifacts
// folder, the test's properties. Apart from roofline.cpp so the harness's own tests link without a grader main.
#include "gpulab/roofline.h"

#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/image.h"
#include "gpulab/phase_clock.h"
#include "gpulab/plot.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

namespace gpulab {
namespace {


}  // namespace

void publish_roofline(const Roofline& r, const std::string& lab_tag) {
    std::ostringstream table;
    char line[256];
    std::snprintf(line, sizeof line, "  %-24s %10s %9s %10s %10s %8s %8s\n", "kernel", "ms", "GB/s", "G op/s",
                  "op/byte", "of roof", "of copy");
    table << line;
    for (const RooflinePoint& p : r.points) {
        if (!p.absent.empty()) {
            table << "  " << p.label << ": not on the chart: " << p.absent << "\n";
            continue;
        }
        std::snprintf(line, sizeof line, "  %-24s %10.3f %9.0f %10.1f %10.2f %8s %8s\n", p.label.c_str(), p.ms, p.gbs,
                      p.gops, p.intensity, pct(p.of_roof).c_str(),
                      pct(r.roofs.copy_gbs > 0 ? p.gbs / r.roofs.copy_gbs : 0).c_str());
        table << line;
    }
    const std::string dir = artifact_dir();
    const std::string json_path = dir + "/roofline.json", png_path = dir + "/roofline.png";
    const std::string text = roofline_json(r);
    std::ofstream(json_path) << text << "\n";
    // Queued for gpulab-grade's worker (plot_queue.h), or drawn here: a Python start and a matplotlib import.
    std::optional<PhaseClock> phase(std::in_place, "roofline: plot");
    const PlotOutcome plot = draw_plot("roofline", json_path, {"--out", png_path});
    phase.reset();
    std::cout << lab_tag << " roofline on " << r.device << ", " << r.problem << ": a device copy moves "
              << fixed(r.roofs.copy_gbs, 0) << " GB/s; FP32 peak " << fixed(r.roofs.fp32_gflops / 1e3, 1)
              << " TFLOP/s, FP64 " << fixed(r.roofs.fp64_gflops / 1e3, 1) << " TFLOP/s ('of roof': of what the "
              << "roofline allows at the kernel's intensity)\n"
              << table.str() << lab_tag << " "
              << (plot.drawn_or_queued() ? "roofline picture: " + png_path : "picture skipped: " + plot.skipped_because) << "\n";
    testing::Test::RecordProperty("roofline_json", text);
    testing::Test::RecordProperty("roofline_table", table.str());
    testing::Test::RecordProperty("artifacts", dir);

    // The grade table's figure: the student's kernels, then the expert's, as shares of the roof.
    std::string figure;
    for (const RooflinePoint& p : r.points) {
        if (p.role != "student" && p.role != "expert") continue;
        if (!figure.empty()) figure += ", ";
        figure += p.label + " " + (p.absent.empty() ? pct(p.of_roof) : std::string("-"));
    }
    record_figure(figure + " of roof; " + (plot.drawn_or_queued() ? "picture " + png_path : "table in the log"), "report only");
}

}  // namespace gpulab
