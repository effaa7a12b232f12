// Grading a folder of submissions: intake, the work list from the results database, workers that build in
// parallel and take turns on each GPU, one stored result per finished submission-lab, and the reports.
#pragma once

#include "intake.h"
#include "results_db.h"
#include "workspace.h"

#include <map>

#include <string>
#include <vector>

namespace gpulab::grade_class {

struct BatchOptions {
    std::string submissions;             // the instructor's folder of submissions
    std::string out;                     // results.sqlite, gradebook.csv, students/, overview/, work/
    std::string tree;                    // the instructor's repository (graders, reference, starter, labs)
    std::vector<std::string> labs;       // empty: every lab of the tree
    std::string mode = "cpu";            // "gpu" or "cpu" (CPU execution mode: correctness only)
    int workers = 1;                     // submission-labs built at once
    std::vector<std::string> gpus;       // CUDA_VISIBLE_DEVICES of each GPU, one grading at a time on each (mode "gpu")
    std::string seed;                    // empty: the batch's stored seed, or a fresh one stored for it
    bool unsandboxed = false;            // the instructor accepts running student code without bubblewrap
    bool terminal = false;               // redraw one progress line instead of printing lines
    std::vector<std::string> cmake_args; // for the workers' first configure (CUDA compiler, architectures)
    Selection regrade;                   // what to grade again
    bool regrade_requested = false;
    std::string grader_version;          // the tree's commit
    int lab_time_limit_s = 3600;         // one submission-lab, build and tests, at most
    // A kernel that never ends hangs nearly every test, each for the lab's whole time limit: after this many
    // hung tests the rest of that lab is not run (and counts as hung). 0: no cap.
    unsigned max_hangs = 2;
    // Every test's time limit in seconds, instead of lab.json's (gpulab-grade's GPULAB_TEST_TIMEOUT_S). 0: lab.json's.
    // A short one makes each submission whose kernel never ends cost seconds instead of minutes, at the risk of
    // stopping a slow but correct test: for CPU execution mode's small inputs, or a class known to hang a lot.
    unsigned test_time_limit_s = 0;
    // The speed tests left out (gpulab-grade --no-timing): their points are "not run", neither earned nor lost. For a
    // first correctness pass, or a GPU that other work shares, where a timed test would measure the other work too.
    bool no_timing = false;
    // Where the workspaces go (worker-N folders, taken under a lock: runs that share it reuse each other's
    // prepared workspaces); %N becomes this node's short host name. Empty: <out>/work (default_work_root).
    std::string workspaces;
};

// The class as the intake found it: the batch's seed, the labs graded, one entry per submission-lab (content
// hash, or "empty"), and each student's files.
struct ClassIntake {
    std::string seed;
    std::vector<LabSpec> specs;
    std::vector<FoundSubmission> found;
    std::map<std::string, Submission> submissions;
};

// The labs of the tree this batch grades (--labs, or all of them).
std::vector<LabSpec> graded_labs(const BatchOptions& options);

// Takes every submission into <out>/work/intake (with the notes the feedback shows), fixes the batch's seed
// and settings in the database, and marks what the instructor asked to regrade.
ClassIntake take_class(const BatchOptions& options, ResultsDb& db);

// The submission-labs that need grading (no result, files changed, another grader version, regrade asked).
std::vector<WorkItem> work_to_do(const BatchOptions& options, const ResultsDb& db, const ClassIntake& intake);

// Whether student code may run here: bubblewrap works, or the instructor said --unsandboxed. Says why not on
// stderr, and prints the sandbox's warnings.
bool sandbox_usable(const BatchOptions& options);

// The folder the workspace slots go in, on this machine (options.workspaces with %N filled in, or the default).
std::string workspaces_root(const BatchOptions& options);
// The workspace a worker grades in, built with every core this process may use (workspaces are prepared one at a
// time: a batch's one after another, a Slurm task's alone).
WorkspaceSpec workspace_spec(const BatchOptions& options, const std::vector<LabSpec>& specs, const std::string& dir);

// Adds -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc to the workspaces' configure where that nvcc exists here
// and neither CUDACXX nor a --cmake-arg names another (CMake would not look in /usr/local/cuda by itself);
// in CPU execution mode -DGPULAB_CUDA=OFF instead, since nothing nvcc builds would run.
void add_default_cuda_compiler(BatchOptions& options);

// This machine's short host name (what Slurm calls the node).
std::string host_name();

// Runs the batch; returns the process's exit status (0: every submission-lab has a stored result; 3: the
// sandbox cannot run and --unsandboxed was not given; 1: something else stopped it, said on stderr).
int run_batch(const BatchOptions& options);

// The reports from whatever the database holds (also after an interrupted batch).
void write_reports(const BatchOptions& options, ResultsDb& db);

}  // namespace gpulab::grade_class
