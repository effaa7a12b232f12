#include "lab_builds.h"

#include "child_process.h"
#include "text_file.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace gpulab::runner {
namespace {

namespace fs = std::filesystem;

// The compiler's error lines and a little context, for the student.
std::string compiler_errors(const std::string& log) {
    std::istringstream in(log);
    std::string line, out;
    int context = 0, shown = 0;
    while (std::getline(in, line) && shown < 40) {
        // g++ names the student's line of a template error in a "required from here" line before it.
        const bool error = (line.find("error") != std::string::npos && line.find("gmake") == std::string::npos &&
                            line.find("make[") == std::string::npos && line.find("Error ") == std::string::npos) ||
                           line.find("required from here") != std::string::npos;
        if (error) context = 3;
        if (context > 0) {
            out += line + "\n";
            --context;
            ++shown;
        }
    }
    return out.empty() ? log.substr(log.size() > 3000 ? log.size() - 3000 : 0) : out;
}

bool build_target(const std::string& build_dir, const std::string& target, const fs::path& log, std::string* errors) {
    fs::remove(log);
    const auto started = std::chrono::steady_clock::now();
    const ExitStatus status = run_child({{"cmake", "--build", build_dir, "--target", target}, {}, log.string()}, [&] {
        return std::chrono::steady_clock::now() - started < std::chrono::minutes(10);
    });
    if (status.exited && status.code == 0) return true;
    *errors = compiler_errors(read_text(log));
    return false;
}

// The lab's grader for `mode`, built here if it is missing and building is asked for: make grade builds only
// CPU execution mode's graders on a machine where nvidia-smi sees no GPU, and the CUDA runtime may still see one.
void ensure_grader(const GradeRequest& request, const LabManifest& manifest, const std::string& mode) {
    if (fs::exists(manifest.graders.at(mode))) return;
    if (!request.build)
        throw UsageError("the " + mode + " grader of " + manifest.lab + " is not built (" + manifest.graders.at(mode) +
                         "): run make grade, or cmake --build " + request.build_dir + " --target gpulab_graders");
    std::cout << "[gpulab] " << manifest.lab << ": building its " << (mode == "cpu" ? "CPU execution mode" : "GPU")
              << " grader ..." << std::endl;
    const fs::path log = fs::path(request.out_dir) / ("build-grader-" + mode + ".log");
    std::string errors;
    if (!manifest.grader_targets.count(mode) || !build_target(request.build_dir, manifest.grader_targets.at(mode), log, &errors))
        throw UsageError("the " + mode + " grader of " + manifest.lab + " does not build; see " + log.string());
}

// The solution's build in one mode (the reference's beside it), and what its objects call.
SolutionBuild build_in_mode(const GradingPlan& plan, const std::string& mode) {
    const GradeRequest& request = plan.request;
    const Build& student = plan.solution.builds.at(mode);
    const Build& reference = plan.manifest.solutions.at("reference").builds.at(mode);
    const std::string suffix = mode == request.mode ? "" : "-" + mode;
    SolutionBuild build;
    build.built = !request.build || build_target(request.build_dir, student.target, plan.work / ("build" + suffix + ".log"), &build.errors);
    if (build.built && request.build && request.solution != "reference" &&
        !build_target(request.build_dir, reference.target, plan.work / ("build-reference" + suffix + ".log"), &build.errors))
        throw UsageError("the reference solution does not build; see " + (plan.work / ("build-reference" + suffix + ".log")).string());
    if (build.built && !fs::exists(student.library)) {
        build.built = false;
        build.errors = "the build produced no library at " + student.library;
    }
    if (!build.built && request.build) build.refused_in_failed_build = check_calls_after_failed_build(plan.solution, student, plan.config);
    if (build.built) build.calls = check_calls(plan.solution, student, plan.config);
    return build;
}

// A library a report draws on, built first where building is asked for: its path where it is there, else empty.
std::string built_library(const GradeRequest& request, const Build& build, const std::string& log_name) {
    std::string ignored;
    if (request.build && !build_target(request.build_dir, build.target, fs::path(request.out_dir) / log_name, &ignored))
        return "";
    return fs::exists(build.library) ? build.library : "";
}

}  // namespace

void build_solution(const GradingPlan& plan, AdmissionFacts& facts) {
    for (const std::string& mode : plan.modes) ensure_grader(plan.request, plan.manifest, mode);
    std::cout << "[gpulab] " << plan.manifest.lab << ": building " << plan.request.solution << " ("
              << (plan.request.mode == "cpu" ? "CPU execution mode" : "GPU") << ") ..." << std::endl;
    for (const std::string& mode : plan.modes) {
        facts.builds.push_back(build_in_mode(plan, mode));
        if (!admit(facts).admitted()) return;
    }
}

std::map<std::string, std::string> companions_for(const GradingPlan& plan, const std::string& mode) {
    std::map<std::string, std::string> found;
    if (plan.request.all_labs) {
        for (const std::string& lab : plan.config.value("companions", std::vector<std::string>{})) {
            for (const LabManifest& other : *plan.request.all_labs) {
                if (other.lab != lab || !other.solutions.count("reference")) continue;
                const auto build = other.solutions.at("reference").builds.find(mode);
                if (build == other.solutions.at("reference").builds.end()) continue;
                if (const std::string library = built_library(plan.request, build->second, "build-companion-" + lab + ".log");
                    !library.empty())
                    found[lab] = library;
            }
        }
    }
    if (const auto expert = plan.manifest.expert.find(mode); expert != plan.manifest.expert.end())
        if (const std::string library = built_library(plan.request, expert->second, "build-expert.log"); !library.empty())
            found[plan.manifest.lab + "/expert"] = library;
    return found;
}

}  // namespace gpulab::runner
