// A class graded on a Slurm cluster (gpulab-grade-class --slurm): the intake and the work list as a local batch
// makes them, the work split into shards on the shared filesystem, ONE job array submitted with sbatch (a task
// per shard, each asking for a GPU with --gres in GPU mode), then squeue and sacct watched while the tasks'
// result files are imported into the database, and the same reports as a local batch.
//
// Run again, the same command takes up where it stopped: it imports what finished, waits for a job array still
// in the queue, and submits a new array for only the submission-labs that no task finished (a task cancelled,
// timed out, out of memory, on a node that failed).
#pragma once

#include "batch.h"

#include <string>
#include <vector>

namespace gpulab::grade_class {

struct SlurmOptions {
    std::string partition;                 // --partition; empty: the cluster's default
    std::string account;                   // --account
    std::string time_limit;                // --time, per array task (Slurm's formats: 30, 1:00:00, 1-0)
    std::string gres;                      // --gres; empty: gpu:1 in GPU mode, none in CPU mode
    int cpus_per_task = 0;                 // --cpus-per-task (builds); 0: the partition's default
    int array_tasks = 8;                   // shards, one array task each (fewer when there is less work)
    std::vector<std::string> sbatch_args;  // more sbatch options (--qos=..., --constraint=...), as #SBATCH lines
    std::vector<std::string> prelude;      // shell lines the batch script runs first (module load cuda/12.4)
    bool wait = true;                      // false: submit, print the job id and return
    bool resubmit_lost = false;            // once, submit a new array for what failed tasks lost, and wait again
    int poll_s = 15;                       // seconds between two looks at squeue / sacct
    std::string program;                   // this program, as the nodes run it (same path on every node)
};

// Returns the exit status: 0 when every submission-lab has a result (or, --no-wait, once submitted); 5 when
// array tasks ended without finishing their shards (named on stderr, with why): run the same command again
// to grade what they lost; 1 when something else stopped it (sbatch refused the job, say).
int run_slurm(const BatchOptions& options, const SlurmOptions& slurm);

}  // namespace gpulab::grade_class
