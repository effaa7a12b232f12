#include "report.h"

#include "gpulab/device_facts.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace gpulab::runner {
namespace {

std::string points_text(double points, double max_points) {
    std::ostringstream out;
    const bool whole = std::fabs(points - std::round(points)) < 1e-9;
    out << std::fixed << std::setprecision(whole ? 0 : 1) << points << "/" << std::setprecision(0) << max_points;
    return out.str();
}

std::string fit(std::string text, std::size_t width) {
    if (text.size() > width) text = text.substr(0, width - 3) + "...";
    return text + std::string(width - text.size(), ' ');
}

const char* colour_of(const IdScore& s, bool color) {
    if (!color) return "";
    if (s.verdict == "not run") return "\033[33m";
    if (s.points == s.max_points && s.failed == 0) return "\033[32m";
    return "\033[31m";
}

std::string indent(const std::string& text, const std::string& prefix) {
    std::string out;
    std::istringstream in(text);
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
        if (++lines > 30) {
            out += prefix + "... (the full log is in the grade folder)\n";
            break;
        }
        out += prefix + line + "\n";
    }
    return out;
}

// The entries said in one line each, one after the other (the tests not counted, and why).
bool is_one_line(Feedback::Kind kind) { return kind == Feedback::Kind::not_counted || kind == Feedback::Kind::why_not_counted; }

nlohmann::json feedback_json(const std::vector<Feedback>& feedback) {
    nlohmann::json entries = nlohmann::json::array();
    for (const Feedback& f : feedback)
        entries.push_back({{"kind", feedback_kind_word(f.kind)}, {"test", f.test}, {"waiting", f.waiting}, {"text", f.text}});
    return entries;
}

}  // namespace

void print_lab(std::ostream& out, const LabScore& lab, bool color) {
    const char* reset = color ? "\033[0m" : "";
    out << "\n== " << lab.lab << ": " << lab.title << "\n";
    const std::string& reason = lab.admission.reason;
    switch (lab.admission.admission) {
        case Admission::not_buildable_in_cpu_mode:
            out << "  CPU execution mode cannot build your code: it uses a CUDA feature this mode does not run "
                   "(named below). The code may well be right; grade it on a machine with a GPU.\n"
                << indent(reason, "    ");
            break;
        case Admission::not_compiled:
            out << "  Your code did not compile, so no test could run. The compiler said:\n" << indent(reason, "    ");
            break;
        case Admission::refused: out << "  Not run: the lab scores 0.\n" << indent(reason, "  "); break;
        case Admission::tampered: {
            const char* red = color ? "\033[31m" : "";
            out << red << indent(reason, "  ") << reset << "  The lab scores 0.\n";
            break;
        }
        case Admission::admitted: break;
    }
    out << "  " << fit("test", 36) << fit("points", 9) << fit("verdict", 17) << fit("measured", 52) << "threshold\n";
    for (const IdScore& s : lab.ids) {
        out << "  " << colour_of(s, color) << fit(s.id, 36) << fit(points_text(s.points, s.max_points), 9)
            << fit(s.verdict, 17) << reset << fit(s.measured, 52) << s.threshold << "\n";
    }
    out << "  " << fit("total", 36) << points_text(lab.points, lab.max_points);
    if (lab.points_not_run > 0) out << "   (" << points_text(lab.points_not_run, lab.max_points) << " not run: the measured column says why)";
    out << "\n";
    if (!lab.artifacts.empty()) {
        out << "\n  Files to open (" << lab.artifacts.size() << "):\n";
        const std::size_t shown = std::min<std::size_t>(lab.artifacts.size(), 12);
        for (std::size_t i = 0; i < shown; ++i) out << "    " << lab.artifacts[i] << "\n";
        if (shown < lab.artifacts.size()) out << "    ... and " << lab.artifacts.size() - shown << " more in the same folder\n";
    }
    // In the order scoring gave (LabScore::feedback): a failure's details each apart, the lines about the tests
    // not counted together.
    if (!lab.feedback.empty()) out << "\n  What went wrong:\n";
    for (std::size_t i = 0; i < lab.feedback.size(); ++i) {
        const bool line = is_one_line(lab.feedback[i].kind);
        for (const std::string& text : lab.feedback[i].text) out << indent(text, "    ") << (line ? "" : "\n");
        if (line && (i + 1 == lab.feedback.size() || !is_one_line(lab.feedback[i + 1].kind))) out << "\n";
    }
    for (const std::string& p : lab.problems) out << "  grader problem (tell your instructor): " << p << "\n";
}

void print_summary(std::ostream& out, const GradeRun& run, bool color) {
    double points = 0, max_points = 0, not_run = 0;
    for (const LabScore& lab : run.labs) {
        points += lab.points;
        max_points += lab.max_points;
        not_run += lab.points_not_run;
    }
    out << "\n== Summary (" << run.solution << (run.mode == "cpu" ? ", CPU execution: correctness only" : "") << ")\n";
    for (const LabScore& lab : run.labs) out << "  " << fit(lab.lab, 36) << points_text(lab.points, lab.max_points) << "\n";
    out << "  " << fit("total", 36) << points_text(points, max_points) << "\n";
    if (run.mode == "cpu") {
        const char* warn = color ? "\033[33m" : "";
        const char* reset = color ? "\033[0m" : "";
        out << warn << "\n  CPU execution: your kernels ran on the CPU, so correctness and stability are graded but "
            << points_text(not_run, max_points) << " points of speed and technique are not.\n"
            << "  Run `make grade` on a machine with an NVIDIA GPU for a full grade." << reset << "\n";
    } else if (!run.gpu) {
        const char* warn = color ? "\033[33m" : "";
        const char* reset = color ? "\033[0m" : "";
        out << warn << "\n  No CUDA GPU was found on this machine: only the tests that need none ran. "
            << points_text(not_run, max_points) << " points were not graded.\n"
            << "  Run `make grade` on a machine with an NVIDIA GPU for a full grade." << reset << "\n";
    } else if (run.device.contains("name")) {
        out << "  device: " << run.device.value("name", "") << ", " << run.device.value("sm_count", 0) << " SMs, CUDA driver "
            << cuda_version_text(run.device.value("driver_version", 0L)) << "\n";
    }
    if (!run.seed.empty()) out << "  seed: " << run.seed << " (GPULAB_SEED=" << run.seed << " reproduces these inputs)\n";
}

nlohmann::json to_json(const GradeRun& run) {
    nlohmann::json labs = nlohmann::json::array();
    for (const LabScore& lab : run.labs) {
        nlohmann::json tests = nlohmann::json::array();
        for (const IdScore& s : lab.ids)
            tests.push_back({{"id", s.id}, {"points", s.points}, {"max_points", s.max_points}, {"verdict", s.verdict},
                             {"passed", s.passed}, {"failed", s.failed}, {"skipped", s.skipped}, {"instances", s.total},
                             {"measured", s.measured}, {"threshold", s.threshold}, {"properties", s.properties},
                             {"details", s.details}});
        labs.push_back({{"lab", lab.lab}, {"title", lab.title}, {"points", lab.points}, {"max_points", lab.max_points},
                        {"points_not_run", lab.points_not_run},
                        {"admission", {{"verdict", admission_key(lab.admission.admission)}, {"reason", lab.admission.reason}}},
                        {"artifacts", lab.artifacts}, {"feedback", feedback_json(lab.feedback)},
                        {"problems", lab.problems}, {"tests", tests}});
    }
    return {{"solution", run.solution}, {"mode", run.mode}, {"gpu", run.gpu}, {"device", run.device}, {"seed", run.seed}, {"labs", labs}};
}

}  // namespace gpulab::runner
