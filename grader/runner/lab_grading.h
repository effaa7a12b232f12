// Grading one lab: build the solution for one way of running kernels, run its tests, score them.
#pragma once

#include "lab_manifest.h"
#include "scoring.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <set>
#include <string>

namespace gpulab::runner {

// A problem with the command or the build tree, not with the student's code.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct GradeRequest {
    std::string build_dir;
    std::string solution;  // starter, reference, wrong/<bug>
    std::string mode;      // gpu or cpu
    std::string out_dir;   // this lab's logs go here
    std::string seed;
    std::string filter;
    bool build = true;
    bool timing = true;  // false: tests marked "timing" in lab.json are not run (make test runs them alone)
    bool reports = true;  // false: tests worth 0 points (reports) are not run (a planted bug's check needs none)
    unsigned max_hangs = 0;  // see SessionSpec::max_hangs; 0: no cap
    // Every lab this build has, for the labs a lab's reports draw on (lab.json "companions").
    const std::vector<LabManifest>* all_labs = nullptr;
    // Where not empty (and timing is on): the only tests marked "timing" that run; the others are left out.
    // make test's check of a planted bug times only the speed tests the bug names.
    std::set<std::string> time_only;
    // Where not empty: the untimed tests' outcomes come from an earlier grading of the same build
    // (<untimed_from>/<lab>/outcomes.json, untimed_outcomes.h) and only the timed tests run, with its seed.
    std::string untimed_from;
    // --compare-modes' CPU grading: the tests lab.json runs in CPU execution mode ("run_in": "cpu") were graded
    // in that mode, on the same seed, by the GPU grading beside it, so they are left out here, not run twice.
    bool run_in_cpu_graded_beside = false;
};

struct LabGrade {
    LabScore score;
    nlohmann::json device = nlohmann::json::object();  // as the grader reported it; {} when nothing ran
    std::string seed;
    // The tests left out because the GPU grading beside this one ran them (GradeRequest::run_in_cpu_graded_beside).
    std::set<std::string> graded_beside;
};

LabGrade grade_lab(const GradeRequest& request, const LabManifest& manifest);

}  // namespace gpulab::runner
