// gpulab-grade-class: grades a folder of submissions (one folder, .zip or .tar.gz per student) with this
// repository's graders, and writes the gradebook, Gradescope results, per-student feedback and a class
// overview. Interrupted, it resumes: run the same command again.
#include "batch.h"
#include "slurm_submit.h"
#include "slurm_task.h"
#include "visible_gpus.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, separator);)
        if (!part.empty()) parts.push_back(part);
    return parts;
}

// What a shell command printed, without its last line break.
std::string command_output(const std::string& command) {
    std::string out;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
        char buffer[128];
        while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
        ::pclose(pipe);
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
}

// The commit of the instructor's tree, as the grader version every result records.
std::string tree_commit(const std::string& tree) {
    // "-dirty" where the tree has changes not committed: a grade is reproducible only from a commit. The changes'
    // own hash follows it, so that a grader edited and not committed yet is never taken for the one before the
    // edit: a worker's copy of the tree made before it is made again, and its results are graded again.
    const std::string quoted = "'" + tree + "'";
    const std::string out = command_output("git -C " + quoted + " describe --always --dirty --abbrev=40 2>/dev/null");
    if (out.empty()) return "unknown (not a git checkout)";
    if (!out.ends_with("-dirty")) return out;
    const std::string changes = command_output("{ git -C " + quoted + " diff HEAD --binary; git -C " + quoted +
                                               " ls-files -o --exclude-standard -z | (cd " + quoted +
                                               " && xargs -0 -r sha256sum --); } 2>/dev/null | sha256sum");
    return changes.empty() ? out : out + "-" + changes.substr(0, 12);
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
        ->check(CLI::ExistingDirectory);
    app.add_option("--out", options.out, "where results.sqlite, gradebook.csv, students/ and overview/ go");
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
    app.add_option("--test-time-limit", options.test_time_limit_s,
                   "seconds every test may take, instead of lab.json's limits (0: lab.json's); a kernel that never ends then "
                   "costs --max-hangs times this")->capture_default_str();
    app.add_flag("--no-timing", options.no_timing,
                 "leave the speed tests out (their points: not run), for a correctness pass or a GPU other work shares");
    app.add_option("--workspaces", options.workspaces,
                   "where the workspaces go (default <out>/work); %N: the node's short host name, for a node-local folder");

    // A GPU cluster through Slurm (slurm_submit.h): one job array, a task per shard, results imported here.
    gpulab::grade_class::SlurmOptions slurm;
    bool use_slurm = false, no_wait = false;
    std::string slurm_task;
    int task_id = -1;
    app.add_flag("--slurm", use_slurm, "grade on a Slurm cluster: submit one job array (sbatch) and import its results");
    app.add_option("--partition", slurm.partition, "--slurm: the partition (default: the cluster's default)");
    app.add_option("--account", slurm.account, "--slurm: the account to charge");
    app.add_option("--time", slurm.time_limit, "--slurm: each array task's time limit (sbatch --time)");
    app.add_option("--gres", slurm.gres, "--slurm: generic resources per task (default gpu:1 in GPU mode, none in CPU mode)");
    app.add_option("--cpus-per-task", slurm.cpus_per_task, "--slurm: CPUs per array task, for the builds (default: the partition's)");
    app.add_option("--array-tasks", slurm.array_tasks, "--slurm: shards, one array task each (fewer when there is less work)")
        ->capture_default_str();
    app.add_option("--sbatch-arg", slurm.sbatch_args, "--slurm: another sbatch option for the script, e.g. --qos=short (repeatable)");
    app.add_option("--task-prelude", slurm.prelude, "--slurm: a shell line each task runs first, e.g. 'module load cuda' (repeatable)");
    app.add_flag("--no-wait", no_wait, "--slurm: submit and return; the same command run later imports and reports");
    app.add_flag("--resubmit-lost", slurm.resubmit_lost, "--slurm: once, submit a new array for what failed tasks lost, and wait");
    app.add_option("--poll", slurm.poll_s, "--slurm: seconds between two looks at squeue and sacct")->capture_default_str();
    app.add_option("--slurm-task", slurm_task, "(run by the batch script on a node) grade shard $SLURM_ARRAY_TASK_ID of this batch folder");
    app.add_option("--task-id", task_id, "with --slurm-task: grade this shard instead of $SLURM_ARRAY_TASK_ID (by hand)");
    CLI11_PARSE(app, argc, argv);
    if (!slurm_task.empty()) return gpulab::grade_class::run_slurm_task(slurm_task, task_id);
    if (options.submissions.empty() || options.out.empty()) {
        std::cerr << "gpulab-grade-class: --submissions and --out are required (--help lists every option)\n";
        return 4;
    }

    options.labs = split(labs, ',');
    if (options.workers <= 0) options.workers = std::max(1, int(std::thread::hardware_concurrency() / 2));
    const int available = gpulab::runner::visible_gpus();
    // On a cluster the GPUs are the nodes', not the submitting machine's: auto is GPU mode there.
    options.mode = mode == "auto" ? (available > 0 || use_slurm ? "gpu" : "cpu") : mode;
    if (options.mode == "gpu" && !use_slurm) {
        const int use = gpus < 0 ? available : std::min(gpus, available);
        if (use <= 0) {
            std::cerr << "gpulab-grade-class: --mode gpu, but no GPU is visible here; use --mode cpu for correctness only\n";
            return 1;
        }
        options.gpus = gpulab::runner::visible_gpu_ids(use);
    }
    if (regrade_all || !student.empty() || !lab.empty()) {
        options.regrade_requested = true;
        if (!student.empty()) options.regrade.student = student;
        if (!lab.empty()) options.regrade.lab = lab;
    }
    options.terminal = ::isatty(STDERR_FILENO);
    options.grader_version = tree_commit(options.tree);
    // With --slurm the nodes' toolkit counts, not this machine's: each array task looks for its own.
    if (!use_slurm) gpulab::grade_class::add_default_cuda_compiler(options);
    try {
        slurm.wait = !no_wait;
        slurm.program = fs::canonical("/proc/self/exe").string();
        const int status = use_slurm ? gpulab::grade_class::run_slurm(options, slurm) : gpulab::grade_class::run_batch(options);
        if (status == 0)
            std::cerr << "gpulab-grade-class: done. Gradebook: " << (fs::path(options.out) / "gradebook.csv").string()
                      << "; per student: " << (fs::path(options.out) / "students").string() << "/<student>/feedback.html\n";
        return status;
    } catch (const std::exception& e) {
        std::cerr << "gpulab-grade-class: " << e.what() << "\n";
        return 1;
    }
}
