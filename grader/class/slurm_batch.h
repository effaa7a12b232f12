// The shared folder of one Slurm job array, <out>/slurm/batch-NNN/: what the submitting side writes before
// sbatch and the array tasks read on the nodes (the class folder lies on a filesystem every node sees at the
// same path). Nothing in it is a database: the tasks write only files, one per finished submission-lab.
//
//   batch.json           the batch's options, the seed, the job id once submitted, how many tasks
//   shard-K.json         task K's submission-labs, each with the student's files as the intake took them
//   files/<student>/<lab>/  the batch's copy of those files (a later run's intake may rewrite its own)
//   job.sh               the batch script sbatch was given (kept, so an admin can read what ran)
//   logs/<job>_<K>.out   each task's output (sbatch --output=%A_%a)
//   tasks/task-K.json    what task K says of itself: node, Slurm job id, started, finished, how many graded
//   results/             one result file per finished submission-lab (result_files.h)
#pragma once

#include "batch.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpulab::grade_class {

struct ShardItem {
    WorkItem work;
    std::map<std::string, std::string> files;  // source name -> absolute path of the intake's copy
};

struct SlurmBatch {
    std::filesystem::path dir;
    std::string job_id;  // the array's job id from sbatch --parsable; empty until submitted
    int tasks = 0;

    std::filesystem::path shard_path(int task) const { return dir / ("shard-" + std::to_string(task) + ".json"); }
    std::filesystem::path results_dir() const { return dir / "results"; }
    std::filesystem::path task_record(int task) const { return dir / "tasks" / ("task-" + std::to_string(task) + ".json"); }
    std::filesystem::path log_path(int task) const { return dir / "logs" / (job_id + "_" + std::to_string(task) + ".out"); }
};

// The options a task needs to grade as a local batch would (from batch.json).
nlohmann::json options_to_json(const BatchOptions& options, const std::string& seed);
BatchOptions options_from_json(const nlohmann::json& json, std::string& seed);

// A new batch-NNN folder under <out>/slurm with batch.json and one shard file per non-empty shard. The
// submission-labs are dealt out in turn, so each shard gets a mix of students (a slow one does not fill one).
SlurmBatch write_batch(const BatchOptions& options, const std::string& seed, const std::vector<ShardItem>& items, int tasks);

// Records the job id in batch.json once sbatch gave it.
void record_job_id(SlurmBatch& batch, const std::string& job_id);

// Every batch folder under <out>/slurm, oldest first.
std::vector<SlurmBatch> read_batches(const std::string& out);

std::vector<ShardItem> read_shard(const SlurmBatch& batch, int task);

}  // namespace gpulab::grade_class
