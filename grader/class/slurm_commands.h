// Slurm's own commands, run and read: sbatch submits the array, squeue and sacct say what became of each array
// task, scancel is the instructor's. No scheduler of our own and no ssh: whatever the cluster's Slurm allows
// the instructor, this does, and nothing else.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpulab::grade_class {

struct CommandResult {
    bool started = false;  // false: the program is not on the PATH
    int status = -1;       // exit status (-1: killed by a signal)
    std::string out, err;
};

// Runs argv (no shell) to completion and returns its output.
CommandResult run_command(const std::vector<std::string>& argv);

// What Slurm says of one array task.
struct TaskState {
    int task = -1;           // SLURM_ARRAY_TASK_ID
    std::string job_id;      // the task's own job id (SLURM_JOB_ID, sacct's JobIDRaw)
    std::string state;       // PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT, CANCELLED, NODE_FAIL, OUT_OF_MEMORY, ...
    std::string exit_code;   // "code:signal", as sacct writes it
    std::string reason;      // why pending, or why it ended (NonZeroExitCode, TimeLimit, ...); "None" when none
    std::string node;
    std::string elapsed;

    friend bool operator==(const TaskState&, const TaskState&) = default;
};

// Still to end (pending, running, being requeued or suspended).
bool is_live(const std::string& state);
// Ended without doing its work: FAILED, TIMEOUT, CANCELLED, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, PREEMPTED.
bool is_failure(const std::string& state);

// squeue -h -r -t all -j <job> -O 'ArrayTaskID:|,JobID:|,State:|,Reason:|,exit_code:|,NodeList:|,TimeUsed:|'
std::vector<std::string> squeue_command(const std::string& job_id);
// Its output, by array task. exit_code is a wait status there (1280 for exit 5): given as "5:0".
std::map<int, TaskState> parse_squeue(const std::string& text);

// sacct -j <job> -X -n -P -o JobID,JobIDRaw,State,ExitCode,Reason,NodeList,Elapsed (needs slurmdbd).
std::vector<std::string> sacct_command(const std::string& job_id);
// Its output, by array task ("12_3" is task 3; a pending remainder "12_[4-7]" is left out). "CANCELLED by 0"
// becomes CANCELLED.
std::map<int, TaskState> parse_sacct(const std::string& text);

// Without slurmdbd, sacct has only the job completion log (JobCompType=jobcomp/filetxt, `sacct -c`), which
// knows each task by its own job id, not by array index:
// sacct -c -n -P -o JobID,State,ExitCode,NodeList,Elapsed
std::vector<std::string> sacct_completion_command();
// Its lines for the given job ids (task's own job id -> array task), by array task.
std::map<int, TaskState> parse_sacct_completion(const std::string& text, const std::map<std::string, int>& task_of_job);

}  // namespace gpulab::grade_class
