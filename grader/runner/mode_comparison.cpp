#include "mode_comparison.h"

#include "exit_status.h"

#include <map>

namespace gpulab::runner {
namespace {

std::string verdict_of(const IdScore& s) {
    if (s.total == s.skipped) return "not run";
    return s.failed == 0 ? "pass" : "fail";
}

std::string pad(std::string text, std::size_t width) {
    return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

}  // namespace

int compare_modes(std::ostream& out, const LabScore& gpu, const LabScore& cpu, const std::set<std::string>& may_differ,
                  const std::set<std::string>& graded_once) {
    std::map<std::string, const IdScore*> cpu_by_id;
    for (const IdScore& s : cpu.ids) cpu_by_id[s.id] = &s;
    int verdict = kGraded;
    out << "\n  " << pad("test", 36) << pad("GPU", 10) << pad("CPU mode", 10) << "\n";
    for (const IdScore& g : gpu.ids) {
        const auto found = cpu_by_id.find(g.id);
        const std::string on_gpu = verdict_of(g), on_cpu = found == cpu_by_id.end() ? "missing" : verdict_of(*found->second);
        std::string note;
        if (graded_once.count(g.id) && on_gpu != "not run") {
            note = "one grading: the GPU column's, run in CPU execution mode";
        } else if (on_gpu != "not run" && on_cpu != "not run") {
            if (on_gpu == on_cpu) {
                note = "same";
            } else if (may_differ.count(g.id)) {
                note = "differs (allowed: a may_fail test of this planted bug)";
            } else {
                note = "DIFFERENT";
                verdict = kRequirementNotMet;
            }
        }
        out << "  " << pad(g.id, 36) << pad(on_gpu, 10) << pad(on_cpu, 10) << note << "\n";
    }
    return verdict;
}

}  // namespace gpulab::runner
