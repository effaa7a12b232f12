// What grading one lab works from, worked out once from the request, the lab's manifest and its lab.json: the
// solution, the modes its tests run in, and the sets of tests lab.json marks for special handling.
#pragma once

#include "lab_grading.h"

#include "gpulab/lab_config.h"

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace gpulab::runner {

struct GradingPlan {
    const GradeRequest& request;
    const LabManifest& manifest;
    Json config;  // lab.json
    const Solution& solution;
    // request.mode, then "cpu" where a CPU part runs the tests lab.json runs in CPU execution mode (cpu_part).
    std::vector<std::string> modes;
    std::set<std::string> credit_per_case;  // "credit": "proportional"
    // Tests marked "run_in": "cpu" measure what only CPU execution mode can (for instance how often a kernel
    // reads its input): on a GPU they still run there, so both modes give one verdict.
    std::set<std::string> cpu_only;
    bool cpu_part = false;  // a GPU grading runs `cpu_only` in CPU execution mode beside it
    std::set<std::string> graded_beside;  // GradeRequest::run_in_cpu_graded_beside's tests
    std::set<std::string> timed_ids;      // "timing": true
    std::set<std::string> report_ids;     // "points": 0
    std::filesystem::path work;           // request.out_dir
};

// Throws UsageError where the request cannot be graded: no such solution, no such mode in this build, a
// --time-only test lab.json does not mark "timing".
GradingPlan plan_grading(const GradeRequest& request, const LabManifest& manifest);

}  // namespace gpulab::runner
