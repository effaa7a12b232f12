#include "slurm_task.h"

#include "grade_one.h"
#include "result_files.h"
#include "slurm_batch.h"
#include "text_file.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace gpulab::grade_class {

namespace fs = std::filesystem;

namespace {

std::string env_or(const char* name, const std::string& fallback) {
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

// What the task says of itself, beside what Slurm says: the submitting side reads it to tie the task to its
// own job id (all a job completion log knows) and to tell a task that finished from one that died.
void record(const SlurmBatch& batch, int task, const nlohmann::json& fields) {
    const fs::path path = batch.task_record(task);
    nlohmann::json json = fs::exists(path) ? nlohmann::json::parse(runner::read_text(path)) : nlohmann::json::object();
    json.update(fields);
    const fs::path temporary = path.string() + ".tmp";
    std::ofstream(temporary) << json.dump(1) << "\n";
    fs::rename(temporary, path);
}

// The GPUs Slurm gave this task (--gres=gpu:N sets CUDA_VISIBLE_DEVICES on the node): the sandboxed grader gets
// one of those device numbers, never another task's GPU.
std::vector<std::string> gpus_given_by_slurm() {
    std::vector<std::string> gpus;
    std::stringstream list(env_or("CUDA_VISIBLE_DEVICES", ""));
    for (std::string entry; std::getline(list, entry, ',');) {
        if (entry.empty() || entry.find_first_not_of("0123456789") != std::string::npos)
            throw std::runtime_error("CUDA_VISIBLE_DEVICES is \"" + env_or("CUDA_VISIBLE_DEVICES", "") +
                                     "\": expected the device numbers Slurm's gres gives a task");
        gpus.push_back(entry);
    }
    if (gpus.empty())
        throw std::runtime_error("--mode gpu, but this task was given no GPU (CUDA_VISIBLE_DEVICES is not set): the "
                                 "partition needs gres gpu, and the job --gres=gpu:1 (the default of --slurm in GPU mode)");
    return gpus;
}

int grade_shard(SlurmBatch& batch, int task) {
    const nlohmann::json stored = nlohmann::json::parse(runner::read_text(batch.dir / "batch.json"));
    batch.job_id = env_or("SLURM_ARRAY_JOB_ID", stored.value("job_id", ""));
    std::string seed;
    BatchOptions options = options_from_json(stored.at("options"), seed);
    add_default_cuda_compiler(options);  // this node's toolkit (after the prelude's module load, say)
    // A workspace is built for its node's GPU and toolchain: by default each node has its own set.
    if (options.workspaces.empty())
        options.workspaces = (fs::path(default_work_root(options.out, options.unsandboxed)) / "node-%N").string();
    const std::vector<ShardItem> items = read_shard(batch, task);
    std::cerr << "[gpulab-grade-class] task " << task << " of job " << batch.job_id << " on " << host_name() << ": "
              << items.size() << " submission-lab(s) of " << batch.dir.string() << "\n";
    if (!sandbox_usable(options)) return 3;
    if (options.mode == "gpu") options.gpus = gpus_given_by_slurm();

    // The students' files as the intake on the submitting side took them (on the shared filesystem).
    std::map<std::string, Submission> submissions;
    for (const ShardItem& item : items) {
        Submission& sub = submissions[item.work.submission.student];
        sub.student = item.work.submission.student;
        LabFiles lab;
        lab.lab = item.work.submission.lab;
        lab.files = item.files;
        lab.content_hash = item.work.submission.content_hash;
        sub.labs.push_back(lab);
    }
    Progress progress(int(items.size()), false);
    GpuPool gpus(options.gpus, 1);
    GradingContext c{options, std::move(submissions), seed, &progress, &gpus};

    // A workspace of this node that an earlier task prepared, when one is free: the graders are built once per
    // node (and per task running beside another), not once per task.
    const WorkspaceSlot slot(workspaces_root(options));
    Workspace ws(workspace_spec(options, graded_labs(options), slot.dir()));
    const auto prepare_start = std::chrono::steady_clock::now();
    ws.prepare();
    const double prepare_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - prepare_start).count();
    std::cerr << "[gpulab-grade-class] workspace " << slot.dir() << ": ready in " << int(prepare_s + 0.5) << " s\n";
    record(batch, task, {{"workspace", slot.dir()}, {"workspace_ready_s", prepare_s}});

    const std::string worker = host_name() + ":slurm" + batch.job_id + "_" + std::to_string(task) + ":w" + std::to_string(slot.index());
    int graded = 0;
    for (const ShardItem& item : items) {
        const std::string& student = item.work.submission.student;
        const std::string& lab = item.work.submission.lab;
        // Slurm may run a task again (requeued after a node failure): what it finished before stays.
        const fs::path done = result_file_path(batch.results_dir(), student, lab);
        if (fs::exists(done) && read_result_file(done).content_hash == item.work.submission.content_hash) {
            progress.finished(student + " " + lab + ": graded before this task was run again", false);
            ++graded;
            continue;
        }
        progress.started(student + " " + lab + ": building");
        const LabResult r = grade_one(c, ws, item.work, worker);
        write_result_file(batch.results_dir(), r);
        ++graded;
        record(batch, task, {{"graded", graded}});
        progress.finished(r.student + " " + r.lab + ": " + r.status + " " + std::to_string(int(r.points)) + "/" +
                              std::to_string(int(r.max_points)),
                          r.status != status::graded || r.points < r.max_points);
    }
    return 0;
}

}  // namespace

int run_slurm_task(const std::string& batch_dir, int task) {
    SlurmBatch batch;
    batch.dir = fs::absolute(batch_dir);
    if (task < 0) {
        const std::string id = env_or("SLURM_ARRAY_TASK_ID", "");
        if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
            std::cerr << "gpulab-grade-class: --slurm-task runs as an array task of the job --slurm submitted "
                         "(SLURM_ARRAY_TASK_ID is not set; --task-id K runs shard K by hand)\n";
            return 1;
        }
        task = std::stoi(id);
    }
    try {
        record(batch, task, {{"task", task}, {"node", host_name()}, {"job_id", env_or("SLURM_JOB_ID", "")},
                             {"array_job_id", env_or("SLURM_ARRAY_JOB_ID", "")}, {"started_at", utc_now_iso8601_ms()},
                             {"state", "running"}});
        const int status = grade_shard(batch, task);
        record(batch, task, {{"state", status == 0 ? "finished" : "stopped"}, {"exit_status", status},
                             {"finished_at", utc_now_iso8601_ms()}});
        return status;
    } catch (const std::exception& e) {
        std::cerr << "gpulab-grade-class: task " << task << ": " << e.what() << "\n";
        try {
            record(batch, task, {{"state", "stopped"}, {"error", e.what()}, {"finished_at", utc_now_iso8601_ms()}});
        } catch (const std::exception&) {
        }
        return 1;
    }
}

}  // namespace gpulab::grade_class
