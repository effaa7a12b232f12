#include "lab_grading.h"

#include "child_process.h"
#include "test_session.h"

#include "gpulab/lab_config.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace gpulab::runner {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

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

}  // namespace

LabGrade grade_lab(const GradeRequest& request, const LabManifest& manifest) {
    const Json config = load_json_file(manifest.config);
    const auto solution = manifest.solutions.find(request.solution);
    if (solution == manifest.solutions.end()) {
        std::string known;
        for (const auto& [name, s] : manifest.solutions) known += " " + name;
        throw UsageError(manifest.lab + " has no solution named \"" + request.solution + "\". It has:" + known);
    }
    if (!manifest.graders.count(request.mode) || !solution->second.builds.count(request.mode))
        throw UsageError("this build has no " + request.mode + " mode for " + manifest.lab +
                         (request.mode == "gpu" ? " (no CUDA compiler was found)" : " (Boost.Context was not found)"));
    const Build& student = solution->second.builds.at(request.mode);
    const Build& reference = manifest.solutions.at("reference").builds.at(request.mode);
    const fs::path work = request.out_dir;
    fs::create_directories(work);

    std::cout << "[gpulab] " << manifest.lab << ": building " << request.solution << " ("
              << (request.mode == "cpu" ? "CPU execution mode" : "GPU") << ") ..." << std::endl;
    std::string errors;
    bool built = !request.build || build_target(request.build_dir, student.target, work / "build.log", &errors);
    if (built && request.build && request.solution != "reference" &&
        !build_target(request.build_dir, reference.target, work / "build-reference.log", &errors))
        throw UsageError("the reference solution does not build; see " + (work / "build-reference.log").string());
    if (built && !fs::exists(student.library)) {
        built = false;
        errors = "the build produced no library at " + student.library;
    }
    if (!built) return {score_uncompiled(config, errors), nlohmann::json::object(), request.seed};

    std::cout << "[gpulab] " << manifest.lab << ": running the tests (each in its own process) ..." << std::endl;
    SessionSpec spec{manifest.graders.at(request.mode), manifest.config, student.library, reference.library,
                     work.string(), request.seed, request.filter};
    spec.test_timeout_s = solution->second.test_timeout_s;
    const SessionResult session = run_session(spec);
    if (!session.error.empty()) throw UsageError(session.error);
    LabScore score = score_lab(config, session);
    if (const fs::path artifacts = work / "artifacts"; fs::is_directory(artifacts)) {
        for (const auto& entry : fs::recursive_directory_iterator(artifacts))
            if (entry.is_regular_file()) score.artifacts.push_back(entry.path().string());
        std::sort(score.artifacts.begin(), score.artifacts.end());
    }
    return {score, session.device, session.seed};
}

}  // namespace gpulab::runner
