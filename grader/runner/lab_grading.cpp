#include "lab_grading.h"

#include "admission.h"
#include "grading_plan.h"
#include "lab_builds.h"
#include "test_waves.h"
#include "untimed_outcomes.h"

#include <algorithm>
#include <filesystem>

namespace gpulab::runner {
namespace {

namespace fs = std::filesystem;

// A test that found the grader's own inputs broken (a course photo that cannot be read, say) stops grading: no
// submission may be charged for it.
void stop_on_grader_error(const std::string& lab, const SessionResult& session) {
    for (const TestOutcome& t : session.tests)
        if (t.properties.contains("grader_error"))
            throw UsageError("grader error in " + lab + " (" + t.name + "), not the submission's fault: " +
                             t.properties.at("grader_error").get<std::string>());
}

// The files the tests left for a person to open, sorted.
std::vector<std::string> artifacts_in(const fs::path& folder) {
    std::vector<std::string> found;
    if (!fs::is_directory(folder)) return found;
    for (const auto& entry : fs::recursive_directory_iterator(folder))
        if (entry.is_regular_file()) found.push_back(entry.path().string());
    std::sort(found.begin(), found.end());
    return found;
}

}  // namespace

LabGrade grade_lab(const GradeRequest& request, const LabManifest& manifest) {
    const GradingPlan plan = plan_grading(request, manifest);
    fs::create_directories(plan.work);
    // Each stage tells admission (admission.h) what it learnt, and runs only while admission admits: nothing of
    // the solution is built before its #include lines have passed, and nothing of it runs before its calls have.
    AdmissionFacts facts;
    facts.includes = check_includes(plan.solution, plan.config);
    if (admit(facts).admitted()) build_solution(plan, facts);
    SessionResult session{.device = nlohmann::json::object(), .seed = request.seed};  // where nothing ran
    if (admit(facts).admitted()) {
        session = run_tests(plan);
        facts.tampering = session.tampering;
    }
    if (const AdmissionVerdict verdict = admit(facts); !verdict.admitted())
        return {score_not_admitted(plan.config, verdict), session.device, session.seed};

    stop_on_grader_error(manifest.lab, session);
    save_outcomes(plan.work.string(), {manifest.lab, request.solution, request.mode}, session);
    LabScore score = score_lab(plan.config, session);
    score.artifacts = artifacts_in(plan.work / "artifacts");
    return {score, session.device, session.seed, plan.graded_beside};
}

}  // namespace gpulab::runner
