// What CMake tells the runner about each lab it built: where its config and grader binary are, and
// which solutions (starter, reference, planted bugs) can be built for it.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpulab::runner {

struct SolutionTarget {
    std::string name;     // "starter", "reference", "wrong/off-by-one-boundary"
    std::string target;   // the CMake target that builds it
    std::string library;  // the shared library it produces
    std::string expect;   // for planted bugs: the JSON file naming the tests that must fail
};

struct LabManifest {
    std::string lab;
    std::string config;  // labs/<lab>/lab.json
    std::string grader;  // the lab's GoogleTest binary
    std::map<std::string, SolutionTarget> solutions;
};

// Every lab manifest in <build>/gpulab-labs/, sorted by lab name.
std::vector<LabManifest> load_manifests(const std::string& build_dir);

}  // namespace gpulab::runner
