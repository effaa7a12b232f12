// gpulab-grade: builds a solution, runs each lab's grader against it test by test, and prints the
// grade. `make grade` calls it; so do the project's own tests, with --require or --compare-modes.
#include "built_in_paths.h"
#include "exit_status.h"
#include "lab_grading.h"
#include "lab_manifest.h"
#include "mode_comparison.h"
#include "report.h"
#include "reports.h"  // grader/feedback: the student's report page
#include "requirements.h"

#include "visible_gpus.h"
#include "gpulab/lab_config.h"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>

namespace fs = std::filesystem;
using namespace gpulab::runner;

namespace {

struct Options {
    std::string build_dir = default_build_dir();
    std::string solution = "starter";
    std::vector<std::string> labs;
    std::string out;
    std::string seed;
    std::string filter;
    std::string require = "none";
    std::string mode = "auto";
    bool compare = false;
    bool no_build = false;
    bool no_timing = false;
    bool no_reports = false;
    std::vector<std::string> time_only;
    std::string untimed_from;
    unsigned max_hangs = 0;
    bool color = isatty(STDOUT_FILENO);
    std::vector<LabManifest> all_labs;  // every lab built, whatever --lab picks
};

bool has_mode(const std::vector<LabManifest>& labs, const char* mode) {
    return !labs.empty() && labs.front().graders.count(mode);
}

bool gpu_present() { return visible_gpus() > 0; }

// auto: the GPU when this build has GPU mode and a GPU answers, else CPU execution mode when built,
// else GPU mode anyway (only the tests that need no device run).
std::string choose_mode(const std::string& asked, const std::vector<LabManifest>& labs) {
    if (asked != "auto") return asked;
    if (has_mode(labs, "gpu") && gpu_present()) return "gpu";
    if (has_mode(labs, "cpu")) return "cpu";
    return "gpu";
}

GradeRequest request_for(const Options& options, const LabManifest& lab, const std::string& mode,
                         const fs::path& out) {
    GradeRequest request{options.build_dir, options.solution,   mode, (out / lab.lab).string(), options.seed, options.filter,
                         !options.no_build,  !options.no_timing, !options.no_reports, options.max_hangs, &options.all_labs};
    request.time_only.insert(options.time_only.begin(), options.time_only.end());
    request.untimed_from = options.untimed_from;
    return request;
}

// summary.json, and the student's report page beside it (the table, what went wrong, the pictures, the logs): its
// path is the last line a student reads.
void write_summary(const GradeRun& run, const fs::path& out) {
    const fs::path summary = out / "summary.json";
    const nlohmann::json content = to_json(run);
    std::ofstream(summary) << content.dump(2) << "\n";
    std::cout << "  details: " << summary.string() << " (and per-lab logs beside it)\n";
    try {
        const std::string whose = run.solution == "starter" ? "your code (starter/)" : run.solution;
        const fs::path page = gpulab::feedback::write_report_page(out, content, whose);
        std::cout << "  report page: " << page.string() << " (open it in a browser: the table, what went wrong and "
                  << "the pictures on one page)\n";
    } catch (const std::exception& e) {
        std::cout << "  report page not written: " << e.what() << "\n";
    }
}

int grade(Options& options, const std::vector<LabManifest>& labs) {
    GradeRun run;
    run.solution = options.solution;
    run.mode = choose_mode(options.mode, labs);
    run.gpu = true;
    bool any_device = false;
    int requirement = kGraded;
    for (const LabManifest& lab : labs) {
        LabGrade graded = grade_lab(request_for(options, lab, run.mode, options.out), lab);
        if (run.device.empty()) run.device = graded.device;
        if (run.seed.empty()) run.seed = graded.seed;
        // A lab whose code did not build reported no device ({}): it says nothing about the GPU.
        if (graded.device.is_object() && !graded.device.empty()) {
            any_device = true;
            run.gpu = run.gpu && graded.device.value("available", false) && !graded.device.value("emulated", false);
        }
        print_lab(std::cout, graded.score, options.color);
        requirement = combine(requirement, check_requirement(options.require, graded.score, lab.solutions.at(options.solution)));
        run.labs.push_back(std::move(graded.score));
    }
    // Where no lab's code built, none ran to ask: this process asks (a summary saying "no CUDA GPU was found"
    // to a student whose code did not compile, on a GPU machine, sends them looking for the wrong problem).
    if (!any_device) run.gpu = run.mode == "gpu" && gpu_present();
    print_summary(std::cout, run, options.color);
    write_summary(run, options.out);
    if (options.require != "none") return requirement;
    return run.gpu ? kGraded : kGradedWithoutGpu;
}

int compare(Options& options, const std::vector<LabManifest>& labs) {
    if (!has_mode(labs, "gpu") || !has_mode(labs, "cpu") || !gpu_present()) {
        const char* needs = "--compare-modes needs a GPU and a build with both GPU and CPU execution mode";
        if (options.require == "none") {
            std::cout << needs << "\n";
            return kCannotCheckWithoutGpu;
        }
        // make test's check of a planted bug: the one grading this machine can do, held to --require.
        std::cout << "modes not compared (" << needs << "): graded once, in " << choose_mode(options.mode, labs)
                  << " mode, and held to --require " << options.require << "\n";
        return grade(options, labs);
    }
    // One seed for both modes, so both grade the same inputs.
    if (options.seed.empty()) options.seed = std::to_string(std::random_device{}() % 1000000007u);
    int verdict = kGraded, requirement = kGraded;
    for (const LabManifest& lab : labs) {
        const LabGrade gpu = grade_lab(request_for(options, lab, "gpu", fs::path(options.out) / "gpu"), lab);
        print_lab(std::cout, gpu.score, options.color);
        // With --require, the GPU's grade is held to it too: one GPU grading serves both checks.
        requirement = combine(requirement, check_requirement(options.require, gpu.score, lab.solutions.at(options.solution)));
        GradeRequest on_cpu = request_for(options, lab, "cpu", fs::path(options.out) / "cpu");
        // The GPU grading ran the CPU-only tests in CPU execution mode already: the same mode, seed and build.
        on_cpu.run_in_cpu_graded_beside = true;
        const LabGrade cpu = grade_lab(on_cpu, lab);
        print_lab(std::cout, cpu.score, options.color);
        std::cout << "\n== " << lab.lab << ", " << options.solution << ": GPU and CPU execution verdicts (seed "
                  << options.seed << ")";
        std::set<std::string> may_differ;
        if (const std::string& expect = lab.solutions.at(options.solution).expect; !expect.empty())
            for (const std::string& id : gpulab::load_json_file(expect).value("may_fail", std::vector<std::string>{}))
                may_differ.insert(id);
        verdict = combine(verdict, compare_modes(std::cout, gpu.score, cpu.score, may_differ, cpu.graded_beside));
    }
    std::cout << (verdict == kGraded ? "\n  every test that ran in both modes got the same verdict\n"
                                     : "\n  CPU EXECUTION MODE DISAGREES WITH THE GPU on the tests marked DIFFERENT\n");
    if (options.require != "none")
        std::cout << "  the GPU's grade " << (requirement == kGraded ? "meets" : "does NOT meet") << " --require "
                  << options.require << "\n";
    return combine(verdict, requirement);
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
    app.add_option("--require", options.require, "none | full | starter | expected | counters: exit 1 unless the grade looks so (counters: CPU execution "
                   "mode's access figures agree with the GPU's, profiled here or recorded in gpu_counters.json)")
        ->capture_default_str()
        ->check(CLI::IsMember({"none", "full", "starter", "expected", "counters"}));
    app.add_option("--mode", options.mode,
                   "gpu: kernels on the GPU; cpu: CPU execution mode (correctness only); auto: gpu when one is there")
        ->capture_default_str()
        ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
    app.add_flag("--compare-modes", options.compare,
                 "grade on the GPU and in CPU execution mode with one seed; exit 1 if a verdict differs (with --require, "
                 "also if the GPU's grade does not meet it; without a GPU, with --require: grade once and check that)");
    app.add_flag("--no-build", options.no_build, "do not build the solution first");
    app.add_flag("--no-timing", options.no_timing,
                 "leave out the tests lab.json marks \"timing\" (make test runs those alone, the rest in parallel)");
    app.add_option("--max-hangs", options.max_hangs,
                   "after this many tests of a lab hit their time limit, do not run its other tests (0: no cap)");
    app.add_option("--time-only", options.time_only,
                   "time only this test of those lab.json marks \"timing\" (repeatable); the others are left out "
                   "(make test times only the speed tests a planted bug names)");
    app.add_option("--untimed-from", options.untimed_from,
                   "take the untimed tests' outcomes (and seed) from an earlier grading of this build and solution "
                   "(its --out folder; gpu/ in a --compare-modes one) and run only the timed tests (make test on a GPU)");
    app.add_flag("--no-reports", options.no_reports,
                 "leave out the tests worth 0 points (reports: make test checks planted bugs without them)");
    CLI11_PARSE(app, argc, argv);
    if (!options.untimed_from.empty() && (options.compare || options.no_timing)) {
        std::cerr << "gpulab-grade: --untimed-from runs only the timed tests: it goes with neither --compare-modes nor --no-timing\n";
        return kUsageError;
    }

    try {
        std::vector<LabManifest> labs = load_manifests(options.build_dir);
        options.all_labs = labs;
        if (!options.labs.empty()) {
            std::erase_if(labs, [&](const LabManifest& m) {
                return std::find(options.labs.begin(), options.labs.end(), m.lab) == options.labs.end();
            });
            if (labs.empty()) throw UsageError("no lab matches --lab; see labs/CMakeLists.txt for their names");
        }
        if (options.out.empty()) options.out = (fs::path(options.build_dir) / "grade" / options.solution).string();
        fs::create_directories(options.out);
        return options.compare ? compare(options, labs) : grade(options, labs);
    } catch (const std::exception& e) {
        std::cerr << "gpulab-grade: " << e.what() << "\n";
        return kUsageError;
    }
}
