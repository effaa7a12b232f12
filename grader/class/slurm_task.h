// One array task of a class graded on a Slurm cluster: `gpulab-grade-class --slurm-task <batch folder>`, as the
// batch script runs it on a node. It grades its shard (shard-$SLURM_ARRAY_TASK_ID.json) with the same code as a
// local worker (grade_one) and writes each finished submission-lab as a result file on the shared filesystem.
// It never opens the results database: the submitting side imports the files.
#pragma once

#include <string>

namespace gpulab::grade_class {

// Returns the process's exit status: 0 when every submission-lab of the shard has a result file; 3 when the
// sandbox cannot run on this node (and --unsandboxed was not given at submission); 1 for anything else,
// said on stderr (which Slurm writes to the task's output file). `task` < 0: SLURM_ARRAY_TASK_ID.
int run_slurm_task(const std::string& batch_dir, int task);

}  // namespace gpulab::grade_class
