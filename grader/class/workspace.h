// A grading worker's workspace: its own copy of the instructor's tree and, inside it, its own build folder,
// configured once and reused for every submission it grades. Between submissions only the student's files change
// (starter/<lab>/ is reset to the instructor's starter, then the files lab.json lists are copied in), so a
// submission can never change how it is graded, and the graders and the reference are built once.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace gpulab::grade_class {

struct WorkspaceSpec {
    std::string instructor_tree;          // the repository the class is graded with
    std::string dir;                      // the worker's folder: tree/ goes in it, the build in tree/build/
    std::vector<std::string> labs;        // the labs to build (GPULAB_ONLY_LABS)
    std::vector<std::string> cmake_args;  // extra -D... for the first configure (CUDA compiler, archs, stb, boost)
    // The grader version (the tree's commit) the copy is made from: a workspace prepared from another version is
    // copied and configured again, never graded with (a workspace outlives the batch that prepared it).
    std::string version;
    // How many compilers prepare() runs at once: the cores the grader may use. A first preparation builds the
    // harness and the graders, minutes on two cores.
    int build_jobs = 2;
};

class Workspace {
public:
    explicit Workspace(WorkspaceSpec spec);

    const std::string& tree() const { return tree_; }        // the copy the student's files go into (read-only
                                                             // to the student's code)
    // The build folder, tree/build: laid out like a checkout's own build folder (one level below the sources), so
    // that a compiler cache keyed on relative paths (make test's ccache, CCACHE_BASEDIR) gives a workspace the
    // objects the checkout's build already compiled. It is also the only folder the student's code may write,
    // bound writable inside the read-only tree, and holds each grading's logs (run_dir).
    const std::string& build() const { return build_; }
    std::string run_dir(const std::string& student, const std::string& lab) const;  // one grading's logs

    // Copies the instructor's tree (without build folders, .git and earlier workspaces) over what the workspace
    // held, keeping its build folder, and configures the build; a second call (or another process, for the same version) finds both done. Throws std::runtime_error with the log's tail on failure.
    void prepare();
    // Whether prepare() would find everything done (the same version, labs and CMake options), nothing to build.
    bool prepared() const;

    // Puts one submission's files for `lab` in place: starter/<lab>/ back to the instructor's files, then
    // each found file (source name -> path) over it. Removes the library an earlier build left, so a
    // failed build can never grade the previous student's code.
    void place(const std::string& lab, const std::vector<std::pair<std::string, std::string>>& files);

private:
    std::string made_for() const;  // what the "prepared" marker holds once prepare() has done its work
    WorkspaceSpec spec_;
    std::string tree_, build_;
};

// Whether a user other than the owner may reach `path`: every folder from / down to it lets others through.
bool reachable_by_others(const std::filesystem::path& path);

// Where the workspaces go when the instructor names no folder (--workspaces): <out>/work, unless the grader runs
// as root (the sandboxed code then runs as an unprivileged user) and that user could not reach it: a checkout
// under a folder only root may enter, such as what mktemp -d makes. Then they go to a folder of their own under
// /var/tmp (or $GPULAB_CLASS_WORK_ROOT), mode 0711 with an unguessable name, kept in <out>/work-location so a
// resumed batch finds its workspaces again.
std::string default_work_root(const std::string& out, bool unsandboxed);

// A workspace folder taken under a lock: <root>/worker-N for the lowest N that no other process or thread holds
// (flock on <root>/worker-N.lock). Whoever comes next to the same root takes over a workspace already prepared
// (the graders built, minutes on a small machine) instead of building its own: a Slurm node's array tasks, one
// after another, or a local batch run again. Released when destroyed, or by the kernel when the process dies.
class WorkspaceSlot {
public:
    explicit WorkspaceSlot(const std::string& root);
    ~WorkspaceSlot();
    WorkspaceSlot(const WorkspaceSlot&) = delete;
    WorkspaceSlot& operator=(const WorkspaceSlot&) = delete;
    const std::string& dir() const { return dir_; }
    int index() const { return index_; }

private:
    int fd_ = -1;
    int index_ = -1;
    std::string dir_;
};

// The gpulab-grade command that builds and grades one lab of the workspace's starter (the student's
// files), in `mode` ("gpu" or "cpu"), writing summary.json and the logs under `out_dir`.
// After `max_hangs` tests hit their time limit, the lab's other tests are not run (0: no cap).
std::vector<std::string> grade_command(const Workspace& ws, const std::string& lab, const std::string& mode,
                                       const std::string& seed, const std::string& out_dir, unsigned max_hangs);

}  // namespace gpulab::grade_class
