// The command line that builds or runs one student's code in a sandbox: bubblewrap (`bwrap`) with no
// network, the whole system read-only, the instructor's secrets hidden, one writable scratch folder and a
// private /tmp, and CPU, memory, process and file-size limits applied inside by util-linux's prlimit.
// Nothing here runs the student's code: the grader execs the returned argv and enforces the wall clock.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace gpulab::grade_class {

enum class Isolation {
    Bubblewrap,   // the default: namespaces, read-only system, hidden secrets
    Unsandboxed,  // only when the instructor asked for it explicitly (bwrap cannot run): limits only
};

// 0 means "no limit" for each of them.
struct SandboxLimits {
    long cpu_seconds = 600;                       // RLIMIT_CPU: SIGXCPU at this, SIGKILL a second later
    long long memory_bytes = 8LL << 30;           // RLIMIT_AS for CPU jobs; a cgroup for GPU jobs (below)
    long max_processes = 512;                     // RLIMIT_NPROC, threads included (nvcc and make -j need some)
    long long max_file_bytes = 1LL << 30;         // RLIMIT_FSIZE: one runaway log cannot fill the disk
    long wall_seconds = 900;                      // not applied here: the caller kills the command after this
};

struct SandboxSpec {
    Isolation isolation = Isolation::Bubblewrap;
    std::string instructor_tree;  // read-only inside (the grader, interface headers, lab.json, data)
    std::string scratch;          // read-write, the working directory and HOME; must exist (prepare_scratch)
    // Visible read-only even where they lie under a hidden folder (a toolkit or a tree under /home).
    std::vector<std::string> read_only_paths = {"/usr/local/cuda"};
    // Made unreadable inside: an empty read-only folder over a folder, /dev/null over a file (with its SQLite
    // -wal/-shm/-journal companions). Name other students' submissions and the results database here; /home,
    // /root, the instructor's $HOME, /run (sockets such as docker.sock), /mnt and /media are always hidden.
    std::vector<std::string> hidden_paths;
    bool needs_gpu = false;  // bind /dev/nvidia* and /dev/dri; memory then cannot be limited by RLIMIT_AS
    // Set from SandboxCheck::memory_cgroup: wrap the command in `systemd-run --scope -p MemoryMax=` so a GPU
    // job's host memory is limited too (RLIMIT_AS would break the CUDA runtime's large virtual reservations).
    bool memory_cgroup = false;
    SandboxLimits limits;
    // The environment inside is only this: PATH, HOME=scratch, LANG=C, CCACHE_DISABLE=1, TMPDIR=/tmp, plus `env`.
    std::string path = "/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    std::map<std::string, std::string> env;  // e.g. CUDA_VISIBLE_DEVICES, GPULAB_SEED
    // When the grader runs as root the sandboxed command runs as this user instead (setpriv): the kernel
    // exempts root from RLIMIT_NPROC, and root owns, hence can read, every root-owned file.
    uid_t unprivileged_uid = 65534;  // nobody
    gid_t unprivileged_gid = 65534;  // nogroup
};

struct SandboxCheck {
    bool available = false;  // bwrap ran a trivial command with the options sandboxed_command uses
    std::string problem;     // why not, and what to do about it; empty when available
    std::string error;       // the exact output of the failed attempt
    bool memory_cgroup = false;        // `systemd-run --scope -p MemoryMax=` works here (for GPU jobs)
    std::string memory_cgroup_problem;  // why not, with its output
};

// Runs `bwrap ... prlimit ... true` once (as sandboxed_command would, a few milliseconds) and
// `systemd-run --scope ... true`, and says what works.
SandboxCheck sandbox_available();

// The full argv to exec for `argv` under `spec`: bwrap (or, Unsandboxed, a clean environment) around
// prlimit around argv. Throws std::invalid_argument for a spec it cannot honour (no scratch, a relative path).
std::vector<std::string> sandboxed_command(const SandboxSpec& spec, const std::vector<std::string>& argv);

// What the instructor must be told about commands run under `spec`: the loud banner of Unsandboxed mode, a
// GPU job whose memory is not limited, a process limit the kernel does not enforce. Empty when all is well.
std::vector<std::string> sandbox_warnings(const SandboxSpec& spec);

// Creates the scratch folder if needed and, when the grader runs as root, gives it (recursively) to the
// unprivileged user the command runs as, so that the build can write there. Throws std::runtime_error.
void prepare_scratch(const SandboxSpec& spec);

}  // namespace gpulab::grade_class
