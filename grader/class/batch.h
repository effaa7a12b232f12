// Grading a folder of submissions: intake, the work list from the results database, workers that build in
// parallel and take turns on each GPU, one stored result per finished submission-lab, and the reports.
#pragma once

#include "results_db.h"

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
    std::vector<int> gpus;               // GPU indices, one grading at a time on each (mode "gpu")
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
};

// Runs the batch; returns the process's exit status (0: every submission-lab has a stored result; 3: the
// sandbox cannot run and --unsandboxed was not given; 1: something else stopped it, said on stderr).
int run_batch(const BatchOptions& options);

// The reports from whatever the database holds (also after an interrupted batch).
void write_reports(const BatchOptions& options, ResultsDb& db);

}  // namespace gpulab::grade_class
