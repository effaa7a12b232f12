// A grading worker's workspace: its own copy of the instructor's tree and its own build folder, configured
// once and reused for every submission it grades. Between submissions only the student's files change
// (starter/<lab>/ is reset to the instructor's starter, then the files lab.json lists are copied in), so a
// submission can never change how it is graded, and the graders and the reference are built once.
#pragma once

#include <string>
#include <vector>

namespace gpulab::grade_class {

struct WorkspaceSpec {
    std::string instructor_tree;          // the repository the class is graded with
    std::string dir;                      // the worker's folder: tree/ and build/ go in it
    std::vector<std::string> labs;        // the labs to build (GPULAB_ONLY_LABS)
    std::vector<std::string> cmake_args;  // extra -D... for the first configure (CUDA compiler, archs, stb, boost)
};

class Workspace {
public:
    explicit Workspace(WorkspaceSpec spec);

    const std::string& tree() const { return tree_; }        // the copy the student's files go into (read-only
                                                             // to the student's code)
    const std::string& scratch() const { return scratch_; }  // the only folder the student's code may write:
    const std::string& build() const { return build_; }      //   the build folder and
    std::string run_dir(const std::string& student, const std::string& lab) const;  // one grading's logs

    // Copies the instructor's tree (without build folders, .git and earlier workspaces) and configures
    // the build; a second call finds both done. Throws std::runtime_error with the log's tail on failure.
    void prepare();

    // Puts one submission's files for `lab` in place: starter/<lab>/ back to the instructor's files, then
    // each found file (source name -> path) over it. Removes the library an earlier build left, so a
    // failed build can never grade the previous student's code.
    void place(const std::string& lab, const std::vector<std::pair<std::string, std::string>>& files);

private:
    WorkspaceSpec spec_;
    std::string tree_, scratch_, build_;
};

// The gpulab-grade command that builds and grades one lab of the workspace's starter (the student's
// files), in `mode` ("gpu" or "cpu"), writing summary.json and the logs under `out_dir`.
// After `max_hangs` tests hit their time limit, the lab's other tests are not run (0: no cap).
std::vector<std::string> grade_command(const Workspace& ws, const std::string& lab, const std::string& mode,
                                       const std::string& seed, const std::string& out_dir, unsigned max_hangs);

}  // namespace gpulab::grade_class
