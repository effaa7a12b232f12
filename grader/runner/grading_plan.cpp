#include "grading_plan.h"

namespace gpulab::runner {
namespace {

// The ids of tests whose lab.json entry has `key` set to `value`.
std::set<std::string> ids_where(const Json& config, const char* key, const Json& value) {
    std::set<std::string> ids;
    for (const Json& test : config.at("tests"))
        if (test.contains(key) && test.at(key) == value) ids.insert(test.at("id").get<std::string>());
    return ids;
}

const Solution& solution_named(const GradeRequest& request, const LabManifest& manifest) {
    const auto solution = manifest.solutions.find(request.solution);
    if (solution == manifest.solutions.end()) {
        std::string known;
        for (const auto& [name, s] : manifest.solutions) known += " " + name;
        throw UsageError(manifest.lab + " has no solution named \"" + request.solution + "\". It has:" + known);
    }
    if (!manifest.graders.count(request.mode) || !solution->second.builds.count(request.mode))
        throw UsageError("this build has no " + request.mode + " mode for " + manifest.lab +
                         (request.mode == "gpu" ? " (no CUDA compiler was found)" : " (Boost.Context was not found)"));
    return solution->second;
}

}  // namespace

GradingPlan plan_grading(const GradeRequest& request, const LabManifest& manifest) {
    GradingPlan plan{request, manifest, load_json_file(manifest.config), solution_named(request, manifest)};
    const Json& config = plan.config;
    plan.credit_per_case = ids_where(config, "credit", "proportional");
    if (request.mode == "gpu") plan.cpu_only = ids_where(config, "run_in", "cpu");
    if (request.mode == "cpu" && request.run_in_cpu_graded_beside) plan.graded_beside = ids_where(config, "run_in", "cpu");
    // --time-only names tests lab.json marks "timing": a misspelt one would leave every speed test out unnoticed.
    plan.timed_ids = ids_where(config, "timing", true);
    for (const std::string& id : request.time_only)
        if (!plan.timed_ids.count(id))
            throw UsageError("--time-only " + id + ": " + manifest.lab + "'s lab.json marks no test \"timing\" by that name");
    plan.report_ids = ids_where(config, "points", 0);
    plan.cpu_part = !plan.cpu_only.empty() && manifest.graders.count("cpu") && plan.solution.builds.count("cpu");
    plan.modes = {request.mode};
    if (plan.cpu_part) plan.modes.push_back("cpu");
    plan.work = request.out_dir;
    return plan;
}

}  // namespace gpulab::runner
