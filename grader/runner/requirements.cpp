#include "requirements.h"

#include "exit_status.h"

#include "gpulab/counter_agreement.h"
#include "gpulab/lab_config.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>

namespace gpulab::runner {
namespace {

// A slow/ variant's "cause_lines": {test id: {cause: "gaussian_blur.cu:57"}}: the line (file:line, as the test quotes
// it) that must be among the lines the test names for that cause (its "cause_lines" property: suite -> cause -> lines).
bool cause_lines_as_expected(const std::string& id, const nlohmann::json& expected, const IdScore& s) {
    nlohmann::json named = nlohmann::json::object();
    try {
        named = nlohmann::json::parse(s.properties.value("cause_lines", std::string("{}")));
    } catch (const nlohmann::json::exception&) {
    }
    bool ok = true;
    for (const auto& [cause, where] : expected.items()) {
        std::vector<std::string> lines;
        for (const auto& [suite, causes] : named.items())
            if (causes.contains(cause))
                for (const auto& line : causes.at(cause))  // {"line": quoted, "figure": ...}
                    if (line.is_object()) lines.push_back(line.value("line", "") + ": " + line.value("figure", ""));
        const std::string want = where.get<std::string>() + "  ";
        const bool found = std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(want, 0) == 0; });
        if (!found) {
            std::string listed;
            for (const std::string& l : lines) listed += "\n      " + l;
            std::cout << "  EXPECTED " << id << " to put \"" << cause << "\" down to " << where.get<std::string>()
                      << "; it named " << (lines.empty() ? std::string("no line") : listed) << "\n";
            ok = false;
        }
    }
    return ok;
}


// A cheat the grader must void (refuse before it runs, or reject as tampering) with a reason naming
// what it did.
int check_voided(const LabScore& lab, const Json& expect) {
    const std::string verdict = expect.at("verdict");
    const std::string names = expect.value("names", "");
    const AdmissionVerdict& admission = lab.admission;
    const bool voided = admission.built() && !admission.admitted();
    if (!voided || admission_word(admission.admission) != verdict || lab.points != 0 ||
        admission.reason.find(names) == std::string::npos) {
        const std::string got = voided ? admission_word(admission.admission)
                                : admission.admitted() ? "a graded run" : "a build failure";
        std::cout << "  EXPECTED this cheat to be " << verdict << " with a reason naming \"" << names
                  << "\" and no points; got " << got << " with " << lab.points << " points\n";
        if (!admission.reason.empty()) std::cout << admission.reason << "\n";
        return kRequirementNotMet;
    }
    std::cout << "  cheat " << verdict << ", as it must be: " << expect.value("cheat", "") << "\n";
    return kGraded;
}

// The planted bug's tests fail; every test it may not touch passes.
int check_expectations(const LabScore& lab, const std::string& expect_file) {
    const Json expect = load_json_file(expect_file);
    if (lab.admission.built() && !lab.admission.admitted()) {
        std::cout << "  EXPECTED a graded run, but the lab was " << admission_word(lab.admission.admission) << ": "
                  << lab.admission.reason << "\n";
        return kRequirementNotMet;
    }
    const auto must_fail = expect.value("must_fail", std::vector<std::string>{});
    const auto may_fail = expect.value("may_fail", std::vector<std::string>{});
    const std::set<std::string> allowed(may_fail.begin(), may_fail.end());
    int verdict = kGraded;
    for (const IdScore& s : lab.ids) {
        const bool must = std::find(must_fail.begin(), must_fail.end(), s.id) != must_fail.end();
        // Not counted: a test it requires failed first (so it lost its points without running), or the test that
        // confirms it failed afterwards (lab.json "confirmed_by"). That catches the bug too (a cheat whose kernel is
        // already wrong never reaches its speed test; one whose timed samples did other work loses it afterwards).
        if (must && s.verdict == "not counted") {
            std::cout << "  " << s.id << " not counted (a test it requires, or the test that confirms it, failed): its "
                      << "points are lost\n";
        } else if (must && s.total == s.skipped) {
            // The test's own words say why it did not run: CPU execution mode ("needs a real GPU: ..."), or a GPU run
            // that left it out (--no-timing).
            std::cout << "  cannot check " << s.id << " here: it did not run ("
                      << (s.measured.empty() ? s.verdict : s.measured) << ")\n";
            verdict = combine(verdict, kCannotCheckWithoutGpu);
        } else if (must && s.failed == 0) {
            std::cout << "  EXPECTED " << s.id << " to fail for this planted bug, but it passed\n";
            verdict = kRequirementNotMet;
        } else if (!must && !allowed.count(s.id) && s.failed > 0) {
            std::cout << "  " << s.id << " failed, but this planted bug should only fail the tests that name it\n";
            verdict = kRequirementNotMet;
        }
    }
    // A planted performance bug (slow/): the measured cause each named test must give.
    if (expect.contains("causes")) {
        // A cause named by a test that cannot run here (Report.GpuProfile in CPU execution mode, Report.AccessAnalysis
        // without the read counter) is checked where it runs; the verdict says "cannot check" only when no named test
        // ran at all.
        int checked = 0, unchecked = 0;
        for (const auto& [id, causes] : expect.at("causes").items()) {
            const auto s = std::find_if(lab.ids.begin(), lab.ids.end(), [&](const IdScore& x) { return x.id == id; });
            if (s == lab.ids.end()) {
                std::cout << "  EXPECTED " << id << " to name the cause, but the lab has no such test\n";
                verdict = kRequirementNotMet;
                continue;
            }
            if (s->total == s->skipped || s->verdict == "not counted") {
                std::cout << "  cannot check the cause " << id << " names here: it did not run (" << s->verdict << ")\n";
                ++unchecked;
                continue;
            }
            ++checked;
            const std::string named = s->properties.value("causes", std::string());
            for (const std::string cause : causes)
                if (named.find(cause) == std::string::npos) {
                    std::cout << "  EXPECTED " << id << " to name the cause \"" << cause << "\"; it named: "
                              << (named.empty() ? "none" : named) << "\n";
                    verdict = kRequirementNotMet;
                }
            if (expect.contains("cause_lines") && expect.at("cause_lines").contains(id) &&
                !cause_lines_as_expected(id, expect.at("cause_lines").at(id), *s))
                verdict = kRequirementNotMet;
        }
        if (checked == 0 && unchecked > 0) verdict = combine(verdict, kCannotCheckWithoutGpu);
        if (verdict == kGraded) std::cout << "  given its measured cause: " << expect.value("slow", std::string()) << "\n";
        return verdict;
    }
    if (verdict == kGraded) std::cout << "  caught by the tests that name it: " << expect.value("bug", expect.value("cheat", std::string())) << "\n";
    return verdict;
}

// Issue 35, item 3: CPU execution mode's access figures must agree with a GPU's counters of the same launches
// (counter_agreement.h): sectors per request and bank conflicts are deterministic for a kernel, so a disagreement is
// a fault of CPU mode's model (or of the profile), which would otherwise give students wrong figures and wrong
// causes without a GPU. Held for the reference and the right/ and slow/ variants: the kernels the project vouches
// for, correct code in styles students write. wrong/ and cheats/ are exempt: a cheat may run other code on the GPU
// than in CPU execution mode by design (a __CUDA_ARCH__ branch, a launch that sniffs the size or the machine), and a
// planted bug's kernel may race or read out of bounds, so its accesses differ between the two runs.
bool held_to_gpu_agreement(const Solution& solution) {
    return solution.name.rfind("right/", 0) == 0 || solution.name.rfind("slow/", 0) == 0;
}

// Without a GPU: the figures against the counters a GPU recorded for this solution (grader/labs/<lab>/
// gpu_counters.json, made by grader/tools/record_gpu_counters.py from a GPU grading), so that a change to CPU mode's
// model that breaks agreement fails make test on a machine without a GPU too (lab 01's sector use read 0% against
// the H200's 86% for a day because every check of it needed a GPU). Returns the launches that disagree.
std::vector<std::string> recorded_disagreements(const Json& cpu, const Json& recorded) {
    std::vector<std::string> out;
    for (const auto& [key, gpu] : recorded.items()) {
        const std::string call = gpu.value("call", key);
        if (!cpu.contains(key)) {
            out.push_back(call + ": not analysed in CPU execution mode");
            continue;
        }
        const CounterFigures c = counter_figures_of(cpu.at(key)), g = counter_figures_of(gpu);
        if (!counters_agree(c, g)) out.push_back(call + ": " + counter_pairs(c, g) + " (CPU / recorded GPU)");
    }
    return out;
}

// `compared`: the number of access analyses held to a GPU's counters, live or recorded.
int check_gpu_agreement(const LabScore& lab, const Solution& solution, int* compared = nullptr) {
    int verdict = kGraded;
    for (const IdScore& s : lab.ids) {
        if (s.properties.contains("gpu_disagreements")) {  // this machine's GPU was profiled beside CPU mode
            const Json& v = s.properties.at("gpu_disagreements");
            long long n = 0;
            if (v.is_number_integer()) n = v.get<long long>();
            else if (v.is_string()) n = std::atoll(v.get<std::string>().c_str());
            if (compared) ++*compared;
            if (n <= 0) continue;
            std::cout << "  REQUIREMENT NOT MET: " << s.id << ": CPU execution mode's access analysis and the GPU's "
                      << "counters disagree on " << n << " launch" << (n == 1 ? "" : "es") << " (CPU / GPU): "
                      << s.properties.value("gpu_disagreement_rows", std::string("(not listed)")) << "\n";
            verdict = kRequirementNotMet;
            continue;
        }
        if (!s.properties.contains("access_figures") || solution.recorded_gpu_counters.empty()) continue;
        const Json file = load_json_file(solution.recorded_gpu_counters);
        const Json recorded = file.value("solutions", Json::object()).value(solution.name, Json());
        if (!recorded.is_object()) continue;
        if (compared) ++*compared;
        const std::vector<std::string> wrong =
            recorded_disagreements(Json::parse(s.properties.value("access_figures", std::string("{}"))), recorded);
        // The file's device and commit, or the solution's own where it was recorded apart (on another GPU).
        const Json apart = file.value("recorded_apart", Json::object()).value(solution.name, Json::object());
        const Json& origin = apart.empty() ? file : apart;
        const std::string where = origin.value("device", std::string("a GPU")) + " at " +
                                  origin.value("commit", std::string("?")) + " (" + solution.recorded_gpu_counters + ")";
        if (wrong.empty()) {
            std::cout << "  " << s.id << ": CPU execution mode's access figures agree with the counters recorded on "
                      << where << ": " << recorded.size() << " launch" << (recorded.size() == 1 ? "" : "es") << "\n";
            continue;
        }
        std::string listed;
        for (const std::string& w : wrong) listed += (listed.empty() ? "" : "; ") + w;
        std::cout << "  REQUIREMENT NOT MET: " << s.id << ": CPU execution mode's access analysis disagrees with the "
                  << "counters recorded on " << where << " on " << wrong.size() << " launch"
                  << (wrong.size() == 1 ? "" : "es") << " (" << agreement_rule() << "): " << listed << "\n";
        verdict = kRequirementNotMet;
    }
    return verdict;
}

}  // namespace

int check_requirement(const std::string& requirement, const LabScore& lab, const Solution& solution) {
    if (requirement == "none") return kGraded;
    const Json expect =
        requirement == "expected" && !solution.expect.empty() ? load_json_file(solution.expect) : Json::object();
    // A cheat the grader must void, whether or not it builds: a call to a library the solution does not link
    // (cuBLAS) fails to link, and a header-only one (Thrust) does not compile in CPU execution mode, yet each
    // must read as refused, not as a compile error.
    if (expect.contains("verdict")) return check_voided(lab, expect);
    // A planted compile error: the grade must be zero, with the compiler's words for the student.
    if (!expect.value("compiles", true)) {
        if (lab.admission.built() || lab.admission.reason.find("error") == std::string::npos || lab.points != 0) {
            std::cout << "  EXPECTED a build failure reported with the compiler's message and no points\n";
            return kRequirementNotMet;
        }
        std::cout << "  planted compile error reported with the compiler's message; no test ran\n";
        return kGraded;
    }
    if (!lab.admission.built()) {
        std::cout << "  REQUIREMENT NOT MET: the solution does not compile\n";
        return kRequirementNotMet;
    }
    // Only the agreement of CPU execution mode's access figures with the GPU's (make test's check of a right/
    // variant, whose grade is checked apart without its reports: --filter Report.AccessAnalysis, so the config's
    // other tests are missing by design). A check that compared nothing must not pass.
    if (requirement == "counters") {
        int compared = 0;
        const int verdict = check_gpu_agreement(lab, solution, &compared);
        if (compared > 0) return verdict;
        std::cout << "  REQUIREMENT NOT MET: nothing was held to a GPU's counters: Report.AccessAnalysis did not run, "
                     "no GPU was profiled here, and gpu_counters.json records nothing for "
                  << solution.name << "\n";
        return kRequirementNotMet;
    }
    if (lab.admission.built() && !lab.admission.admitted() && requirement != "expected") {
        std::cout << "  REQUIREMENT NOT MET: the lab was " << admission_word(lab.admission.admission) << ": "
                  << lab.admission.reason << "\n";
        return kRequirementNotMet;
    }
    if (!lab.problems.empty()) {
        std::cout << "  REQUIREMENT NOT MET: the lab's config and grader disagree\n";
        return kRequirementNotMet;
    }
    if (requirement == "full") {
        for (const IdScore& s : lab.ids)
            if (s.failed > 0 || (s.points < s.max_points && s.verdict != "not run")) {
                std::cout << "  REQUIREMENT NOT MET: " << s.id << " did not get full marks\n";
                return kRequirementNotMet;
            }
        return check_gpu_agreement(lab, solution);
    }
    if (requirement == "starter") {
        for (const IdScore& s : lab.ids)
            if (s.verdict == "crashed" || s.verdict == "timed out") {
                std::cout << "  REQUIREMENT NOT MET: the untouched starter " << s.verdict << " in " << s.id << "\n";
                return kRequirementNotMet;
            }
        const bool any_ran = std::any_of(lab.ids.begin(), lab.ids.end(), [](const IdScore& s) { return s.total > s.skipped; });
        if (any_ran && lab.points >= lab.max_points - lab.points_not_run) {
            std::cout << "  REQUIREMENT NOT MET: the untouched starter scores everything that ran: do its TODOs fail?\n";
            return kRequirementNotMet;
        }
        return kGraded;
    }
    if (requirement == "expected") {
        if (solution.expect.empty()) {
            std::cout << "  --require expected needs a planted-bug solution (wrong/...)\n";
            return kUsageError;
        }
        const int verdict = check_expectations(lab, solution.expect);
        return held_to_gpu_agreement(solution) ? combine(verdict, check_gpu_agreement(lab, solution)) : verdict;
    }
    std::cout << "unknown --require " << requirement << "\n";
    return kUsageError;
}

}  // namespace gpulab::runner
