// gpulab-grade: builds a solution, runs each lab's grader against it test by test, and prints the
// grade. `make grade` calls it; so do the project's own tests, with --require to check a verdict.
#include "lab_manifest.h"
#include "report.h"
#include "scoring.h"
#include "test_session.h"

#include "gpulab/lab_config.h"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#ifndef GPULAB_DEFAULT_BUILD_DIR
#define GPULAB_DEFAULT_BUILD_DIR "build"
#endif

namespace fs = std::filesystem;
using namespace gpulab::runner;

namespace {

// Exit statuses a script can tell apart.
constexpr int kGraded = 0;
constexpr int kRequirementNotMet = 1;
constexpr int kGradedWithoutGpu = 2;
constexpr int kUsageError = 4;
constexpr int kCannotCheckWithoutGpu = 77;  // ctest's conventional "skipped"

// Several labs' requirement verdicts as one: a failure outweighs "cannot check here".
int combine(int a, int b) {
    for (int worst : {kUsageError, kRequirementNotMet, kCannotCheckWithoutGpu})
        if (a == worst || b == worst) return worst;
    return kGraded;
}

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
        const bool error = line.find("error") != std::string::npos && line.find("gmake") == std::string::npos &&
                           line.find("make[") == std::string::npos && line.find("Error ") == std::string::npos;
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

struct Options {
    std::string build_dir = GPULAB_DEFAULT_BUILD_DIR;
    std::string solution = "starter";
    std::vector<std::string> labs;
    std::string out;
    std::string seed;
    std::string filter;
    std::string require = "none";
    bool no_build = false;
    bool color = isatty(STDOUT_FILENO);
};

// --require expected: the planted bug's tests fail, every other test passes.
int check_expectations(const LabScore& lab, const std::string& expect_file) {
    const gpulab::Json expect = gpulab::load_json_file(expect_file);
    const auto must_fail = expect.value("must_fail", std::vector<std::string>{});
    const auto may_fail = expect.value("may_fail", std::vector<std::string>{});
    const std::set<std::string> allowed(may_fail.begin(), may_fail.end());
    int verdict = kGraded;
    for (const IdScore& s : lab.ids) {
        const bool must = std::find(must_fail.begin(), must_fail.end(), s.id) != must_fail.end();
        if (must && s.total == s.skipped) {
            std::cout << "  cannot check " << s.id << " here: it needs a CUDA GPU\n";
            if (verdict == kGraded) verdict = kCannotCheckWithoutGpu;
        } else if (must && s.failed == 0) {
            std::cout << "  EXPECTED " << s.id << " to fail for this planted bug, but it passed\n";
            verdict = kRequirementNotMet;
        } else if (!must && !allowed.count(s.id) && s.failed > 0) {
            std::cout << "  " << s.id << " failed, but this planted bug should only fail the tests that name it\n";
            verdict = kRequirementNotMet;
        }
    }
    if (verdict == kGraded) std::cout << "  planted bug caught by the tests that name it: " << expect.value("bug", "") << "\n";
    return verdict;
}

int check_requirement(const Options& options, const LabScore& lab, const LabManifest& manifest) {
    if (options.require == "none") return kGraded;
    if (!lab.compiled) {
        std::cout << "  REQUIREMENT NOT MET: the solution does not compile\n";
        return kRequirementNotMet;
    }
    if (!lab.problems.empty()) {
        std::cout << "  REQUIREMENT NOT MET: the lab's config and grader disagree\n";
        return kRequirementNotMet;
    }
    if (options.require == "full") {
        for (const IdScore& s : lab.ids)
            if (s.failed > 0 || (s.points < s.max_points && s.verdict != "not run")) {
                std::cout << "  REQUIREMENT NOT MET: " << s.id << " did not get full marks\n";
                return kRequirementNotMet;
            }
        return kGraded;
    }
    if (options.require == "starter") {
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
    if (options.require == "expected") {
        const auto found = manifest.solutions.find(options.solution);
        if (found == manifest.solutions.end() || found->second.expect.empty()) {
            std::cout << "  --require expected needs a planted-bug solution (wrong/...)\n";
            return kUsageError;
        }
        return check_expectations(lab, found->second.expect);
    }
    std::cout << "unknown --require " << options.require << "\n";
    return kUsageError;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    CLI::App app{"gpulab-grade: grade a solution of the gpulab labs"};
    app.add_option("--build-dir", options.build_dir, "the CMake build folder")->capture_default_str();
    app.add_option("--solution", options.solution, "starter, reference, or wrong/<bug> (a planted bug)")->capture_default_str();
    app.add_option("--lab", options.labs, "grade only this lab (repeatable), e.g. 01-heat-rod");
    app.add_option("--out", options.out, "where logs and summary.json go (default <build>/grade/<solution>)");
    app.add_option("--seed", options.seed, "random seed for the inputs (default: a fresh one, printed)");
    app.add_option("--filter", options.filter, "only tests matching this GoogleTest filter (for debugging)");
    app.add_option("--require", options.require, "none | full | starter | expected: exit 1 unless the grade looks so")
        ->capture_default_str();
    app.add_flag("--no-build", options.no_build, "do not build the solution first");
    CLI11_PARSE(app, argc, argv);

    try {
        const std::vector<LabManifest> manifests = load_manifests(options.build_dir);
        if (options.out.empty()) options.out = (fs::path(options.build_dir) / "grade" / options.solution).string();
        fs::create_directories(options.out);

        GradeRun run;
        run.solution = options.solution;
        run.gpu = true;
        int requirement = kGraded;
        bool any = false;
        for (const LabManifest& manifest : manifests) {
            if (!options.labs.empty() && std::find(options.labs.begin(), options.labs.end(), manifest.lab) == options.labs.end())
                continue;
            any = true;
            const gpulab::Json config = gpulab::load_json_file(manifest.config);
            const auto solution = manifest.solutions.find(options.solution);
            if (solution == manifest.solutions.end()) {
                std::cerr << manifest.lab << " has no solution named \"" << options.solution << "\". It has:";
                for (const auto& [name, s] : manifest.solutions) std::cerr << " " << name;
                std::cerr << "\n";
                return kUsageError;
            }
            const fs::path work = fs::path(options.out) / manifest.lab;
            fs::create_directories(work);
            std::cout << "[gpulab] " << manifest.lab << ": building " << options.solution << " ..." << std::endl;
            std::string errors;
            const SolutionTarget& reference = manifest.solutions.at("reference");
            bool built = options.no_build || build_target(options.build_dir, solution->second.target, work / "build.log", &errors);
            if (built && !options.no_build && options.solution != "reference" &&
                !build_target(options.build_dir, reference.target, work / "build-reference.log", &errors)) {
                std::cerr << "the reference solution does not build; see " << (work / "build-reference.log") << "\n";
                return kUsageError;
            }
            if (built && !fs::exists(solution->second.library)) {
                built = false;
                errors = "the build produced no library at " + solution->second.library;
            }
            LabScore score;
            if (!built) {
                score = score_uncompiled(config, errors);
            } else {
                std::cout << "[gpulab] " << manifest.lab << ": running the tests (each in its own process) ..." << std::endl;
                SessionSpec spec{manifest.grader, manifest.config, solution->second.library, reference.library,
                                 work.string(), options.seed, options.filter};
                const SessionResult session = run_session(spec);
                if (!session.error.empty()) {
                    std::cerr << session.error << "\n";
                    return kUsageError;
                }
                if (run.device.empty()) run.device = session.device;
                if (run.seed.empty()) run.seed = session.seed;
                run.gpu = run.gpu && session.device.value("available", false);
                score = score_lab(config, session);
            }
            print_lab(std::cout, score, options.color);
            requirement = combine(requirement, check_requirement(options, score, manifest));
            run.labs.push_back(std::move(score));
        }
        if (!any) {
            std::cerr << "no lab matches --lab; the labs are:";
            for (const LabManifest& m : manifests) std::cerr << " " << m.lab;
            std::cerr << "\n";
            return kUsageError;
        }
        print_summary(std::cout, run, options.color);
        const fs::path summary = fs::path(options.out) / "summary.json";
        std::ofstream(summary) << to_json(run).dump(2) << "\n";
        std::cout << "  details: " << summary.string() << " (and per-lab logs beside it)\n";
        if (options.require != "none") return requirement;
        return run.gpu ? kGraded : kGradedWithoutGpu;
    } catch (const std::exception& e) {
        std::cerr << "gpulab-grade: " << e.what() << "\n";
        return kUsageError;
    }
}
