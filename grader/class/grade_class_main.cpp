// gpulab-grade-class: grades a folder of submissions (one folder, .zip or .tar.gz per student) with this
// repository's graders, and writes the gradebook, Gradescope results, per-student feedback and a class
// overview. Interrupted, it resumes: run the same command again.
#include "batch.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

#ifdef GPULAB_CLASS_CAN_SEE_GPUS
#include <cuda_runtime.h>
#endif

namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, separator);)
        if (!part.empty()) parts.push_back(part);
    return parts;
}

// The commit of the instructor's tree, as the grader version every result records.
std::string tree_commit(const std::string& tree) {
    // "-dirty" where the tree has changes not committed: a grade is reproducible only from a commit.
    const std::string command = "git -C '" + tree + "' describe --always --dirty --abbrev=40 2>/dev/null";
    std::string out;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
        char buffer[128];
        while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
        ::pclose(pipe);
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out.empty() ? "unknown (not a git checkout)" : out;
}

int visible_gpus() {
#ifdef GPULAB_CLASS_CAN_SEE_GPUS
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
    return count;
#else
    return 0;
#endif
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"gpulab-grade-class: grade a folder of submissions with this repository's graders"};
    gpulab::grade_class::BatchOptions options;
    options.tree = GPULAB_SOURCE_DIR;
    std::string labs, mode = "auto", student, lab;
    bool regrade_all = false;
    int gpus = -1;
    app.add_option("--submissions", options.submissions, "the folder of submissions: one folder, .zip or .tar.gz per student")
        ->required()->check(CLI::ExistingDirectory);
    app.add_option("--out", options.out, "where results.sqlite, gradebook.csv, students/ and overview/ go")->required();
    app.add_option("--tree", options.tree, "the instructor's repository to grade with (default: this one)")->capture_default_str();
    app.add_option("--labs", labs, "only these labs, comma-separated (default: every lab)");
    app.add_option("--mode", mode, "gpu, cpu (CPU execution mode: correctness only) or auto")->capture_default_str();
    app.add_option("--workers", options.workers, "submission-labs built at once (default: cores / 2)");
    app.add_option("--gpus", gpus, "how many GPUs to use, one grading at a time on each (default: every visible one)");
    app.add_option("--seed", options.seed, "the inputs' seed for the whole batch (default: the batch's own, kept in the database)");
    app.add_option("--regrade-student", student, "grade this student's labs again");
    app.add_option("--regrade-lab", lab, "grade this lab again for every student (with --regrade-student: that one)");
    app.add_flag("--regrade-all", regrade_all, "grade everything again");
    app.add_flag("--unsandboxed", options.unsandboxed,
                 "grade even where bubblewrap cannot run (student code then runs with your permissions)");
    app.add_option("--cmake-arg", options.cmake_args, "passed to the workers' first configure, e.g. -DGPULAB_CUDA_ARCHITECTURES=90");
    app.add_option("--lab-time-limit", options.lab_time_limit_s, "seconds one submission-lab may take, build and tests")->capture_default_str();
    app.add_option("--max-hangs", options.max_hangs,
                   "after this many tests of a lab hit their time limit, the rest of it is not run (0: no cap)")->capture_default_str();
    CLI11_PARSE(app, argc, argv);

    options.labs = split(labs, ',');
    if (options.workers <= 0) options.workers = std::max(1, int(std::thread::hardware_concurrency() / 2));
    const int available = visible_gpus();
    options.mode = mode == "auto" ? (available > 0 ? "gpu" : "cpu") : mode;
    if (options.mode == "gpu") {
        const int use = gpus < 0 ? available : std::min(gpus, available);
        if (use <= 0) {
            std::cerr << "gpulab-grade-class: --mode gpu, but no GPU is visible here; use --mode cpu for correctness only\n";
            return 1;
        }
        for (int g = 0; g < use; ++g) options.gpus.push_back(g);
    }
    if (regrade_all || !student.empty() || !lab.empty()) {
        options.regrade_requested = true;
        if (!student.empty()) options.regrade.student = student;
        if (!lab.empty()) options.regrade.lab = lab;
    }
    options.terminal = ::isatty(STDERR_FILENO);
    options.grader_version = tree_commit(options.tree);
    if (std::getenv("CUDACXX") == nullptr && fs::exists("/usr/local/cuda/bin/nvcc"))
        options.cmake_args.push_back("-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc");
    try {
        const int status = gpulab::grade_class::run_batch(options);
        if (status == 0)
            std::cerr << "gpulab-grade-class: done. Gradebook: " << (fs::path(options.out) / "gradebook.csv").string()
                      << "; per student: " << (fs::path(options.out) / "students").string() << "/<student>/feedback.html\n";
        return status;
    } catch (const std::exception& e) {
        std::cerr << "gpulab-grade-class: " << e.what() << "\n";
        return 1;
    }
}
