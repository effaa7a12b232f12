// What CMake tells the runner about each lab it built: where its config is, its grader binary for
// each way of running kernels, and the solutions (starter, reference, planted bugs) it can build.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace gpulab::runner {

// "gpu": kernels compiled by nvcc, run on a GPU. "cpu": CPU execution mode, correctness only.
struct Build {
    std::string target;   // the CMake target that builds it
    std::string library;  // the shared library it produces
    std::vector<std::string> objects;  // the object files compiled from the solution's sources
};

struct Solution {
    std::string name;                   // "starter", "reference", "wrong/off-by-one-boundary"
    std::map<std::string, Build> builds;  // by mode
    std::string sources_dir;            // where its source files are (starter/<lab>, or a planted copy)
    std::string expect;                 // for variants (wrong/, right/, cheats/): the JSON file saying what it must score
    unsigned test_timeout_s = 0;        // a planted bug's own per-test limit (an endless loop need not wait long)
    std::set<std::string> test_timeout_ids;  // the tests that limit is for: those it breaks (must_fail, may_fail)
    bool prebuilt = false;              // compiled elsewhere (a student release's reference): no sources, no objects
    // The lab's counters recorded on a GPU (grader/labs/<lab>/gpu_counters.json; "" where it has none): CPU
    // execution mode's access figures of the solutions recorded there are held to them (requirements.cpp).
    std::string recorded_gpu_counters;
};

struct LabManifest {
    std::string lab;
    std::string config;                          // labs/<lab>/lab.json
    std::map<std::string, std::string> graders;  // the lab's GoogleTest binary, by mode
    std::map<std::string, Solution> solutions;
    // The lab's expert kernels (instructor-only, timed on the roofline report), by mode; none in a release.
    std::map<std::string, Build> expert;
    std::map<std::string, std::string> grader_targets;  // the build targets of `graders`, by mode
};

// Every lab manifest in <build>/gpulab-labs/, sorted by lab name.
std::vector<LabManifest> load_manifests(const std::string& build_dir);

}  // namespace gpulab::runner
