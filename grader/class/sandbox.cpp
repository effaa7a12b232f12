#include "sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

extern char** environ;

namespace gpulab::grade_class {
namespace {

namespace fs = std::filesystem;

bool running_as_root() { return ::geteuid() == 0; }

std::string absolute_path(const std::string& path, const char* what) {
    if (path.empty() || path.front() != '/')
        throw std::invalid_argument(std::string("sandbox: the ") + what + " must be an absolute path, not '" + path + "'");
    // Symbolic links resolved, so that bwrap mounts over the folder itself and not over a link to it.
    return fs::weakly_canonical(path).string();
}

bool is_under(const std::string& path, const std::string& folder) {
    if (folder == "/") return true;
    return path == folder || (path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
                              path[folder.size()] == '/');
}

// The first folder on the way to `path` that `uid` may not enter (others lack x), or "" when it can reach it.
std::string first_unreachable_folder(const std::string& path, uid_t uid) {
    std::string walked;
    for (const fs::path& part : fs::path(path).parent_path()) {
        walked = (fs::path(walked.empty() ? "/" : walked) / part).string();
        struct stat info {};
        if (::stat(walked.c_str(), &info) != 0) continue;
        if (info.st_uid != uid && (info.st_mode & S_IXOTH) == 0) return walked;
    }
    return "";
}

void require_reachable_by_sandbox_user(const SandboxSpec& spec, const std::string& path, const char* what) {
    if (!running_as_root()) return;
    const std::string blocked = first_unreachable_folder(path, spec.unprivileged_uid);
    if (!blocked.empty())
        throw std::invalid_argument(std::string("sandbox: the ") + what + " " + path + " cannot be reached by uid " +
                                    std::to_string(spec.unprivileged_uid) + ", which the sandbox runs as because the grader runs as root: " +
                                    blocked + " is not searchable by others (chmod o+x " + blocked + ", or move it)");
}

// Folders always hidden: homes (ssh keys, tokens, other projects) and /run (sockets such as docker.sock, which a
// read-only mount does not stop a process from connecting to).
std::vector<std::string> default_hidden_folders() {
    std::vector<std::string> folders = {"/home", "/root", "/run", "/mnt", "/media"};
    if (const char* home = std::getenv("HOME"); home && home[0] == '/') folders.emplace_back(home);
    std::vector<std::string> existing;
    for (const std::string& folder : folders) {
        std::error_code error;
        const fs::path resolved = fs::canonical(folder, error);
        if (error || !fs::is_directory(resolved) || resolved == "/") continue;
        existing.push_back(resolved.string());
    }
    return existing;
}

// Whoever the command runs as: the grader's own user, or an unprivileged one when the grader is root.
std::vector<std::string> identity_prefix(const SandboxSpec& spec) {
    if (!running_as_root()) return {};
    return {"setpriv", "--reuid=" + std::to_string(spec.unprivileged_uid), "--regid=" + std::to_string(spec.unprivileged_gid),
            "--clear-groups", "--inh-caps=-all"};
}

// A cgroup around a GPU job: its host memory is limited without RLIMIT_AS.
std::vector<std::string> memory_cgroup_prefix(const SandboxSpec& spec) {
    if (!spec.needs_gpu || !spec.memory_cgroup || spec.limits.memory_bytes <= 0) return {};
    std::vector<std::string> prefix = {"systemd-run", "--quiet", "--scope", "--collect"};
    if (!running_as_root()) prefix.push_back("--user");
    prefix.insert(prefix.end(), {"-p", "MemoryMax=" + std::to_string(spec.limits.memory_bytes), "-p", "MemorySwapMax=0", "--"});
    return prefix;
}

std::vector<std::string> prlimit_prefix(const SandboxSpec& spec) {
    const SandboxLimits& limits = spec.limits;
    std::vector<std::string> prefix = {"prlimit", "--core=0"};
    // Soft limit first (SIGXCPU), the hard one a second later (SIGKILL) for a process that ignores SIGXCPU.
    if (limits.cpu_seconds > 0)
        prefix.push_back("--cpu=" + std::to_string(limits.cpu_seconds) + ":" + std::to_string(limits.cpu_seconds + 1));
    if (limits.memory_bytes > 0 && !spec.needs_gpu) prefix.push_back("--as=" + std::to_string(limits.memory_bytes));
    if (limits.max_processes > 0) prefix.push_back("--nproc=" + std::to_string(limits.max_processes));
    if (limits.max_file_bytes > 0) prefix.push_back("--fsize=" + std::to_string(limits.max_file_bytes));
    prefix.push_back("--");
    return prefix;
}

std::map<std::string, std::string> clean_environment(const SandboxSpec& spec, const std::string& scratch) {
    // CCACHE_DISABLE: a workspace configured with a compiler cache (make test's ccache) compiles the student's code
    // without it. A cache in the scratch folder would outlive the submission, open to the next one's tests.
    std::map<std::string, std::string> env = {{"PATH", spec.path}, {"HOME", scratch}, {"LANG", "C"}, {"CCACHE_DISABLE", "1"}};
    if (spec.isolation == Isolation::Bubblewrap) env["TMPDIR"] = "/tmp";
    for (const auto& [name, value] : spec.env) {
        if (name.empty() || name.find('=') != std::string::npos)
            throw std::invalid_argument("sandbox: '" + name + "' is not an environment variable name");
        env[name] = value;
    }
    return env;
}

void append(std::vector<std::string>& to, const std::vector<std::string>& more) { to.insert(to.end(), more.begin(), more.end()); }

std::vector<std::string> bubblewrap_options(const SandboxSpec& spec, const std::string& scratch, const std::string& tree) {
    std::vector<std::string> options = {"bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                                        "--hostname", "gpulab-sandbox",
                                        // The system read-only, then fresh /dev, /proc and private scratch space over it.
                                        "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                                        "--tmpfs", "/dev/shm"};
    // Hidden folders become empty tmpfs mounts, made read-only at the very end: what follows may still have to
    // create its mount point inside one of them (a tree under /home).
    std::vector<std::string> emptied;
    for (const std::string& folder : default_hidden_folders()) {
        append(options, {"--tmpfs", folder});
        emptied.push_back(folder);
    }
    append(options, {"--ro-bind", tree, tree});
    for (const std::string& path : spec.read_only_paths) {
        const std::string resolved = absolute_path(path, "read-only path");
        append(options, {"--ro-bind-try", resolved, resolved});
    }
    if (spec.needs_gpu) {
        // /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidia0..N, /dev/nvidia-caps/: what the CUDA runtime opens.
        std::error_code error;
        for (const fs::directory_entry& entry : fs::directory_iterator("/dev", error))
            if (entry.path().filename().string().rfind("nvidia", 0) == 0)
                append(options, {"--dev-bind", entry.path().string(), entry.path().string()});
        if (fs::exists("/dev/dri")) append(options, {"--dev-bind", "/dev/dri", "/dev/dri"});
    }
    for (const std::string& path : spec.hidden_paths) {
        const std::string resolved = absolute_path(path, "hidden path");
        // The scratch folder is bound after the hidden paths, so it stays visible inside one; the tree would not.
        if (is_under(tree, resolved))
            throw std::invalid_argument("sandbox: hidden path " + resolved + " would hide the instructor tree " + tree);
        if (fs::is_directory(resolved)) {
            append(options, {"--tmpfs", resolved});
            emptied.push_back(resolved);
            continue;
        }
        // A file: /dev/null over it, and over the files SQLite keeps next to a database (recent rows live in -wal).
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
            if (fs::exists(resolved + suffix)) append(options, {"--ro-bind", "/dev/null", resolved + suffix});
    }
    append(options, {"--bind", scratch, scratch});
    for (const std::string& folder : emptied) append(options, {"--remount-ro", folder});
    append(options, {"--chdir", scratch, "--clearenv"});
    for (const auto& [name, value] : clean_environment(spec, scratch)) append(options, {"--setenv", name, value});
    options.push_back("--");
    return options;
}

std::vector<std::string> unsandboxed_options(const SandboxSpec& spec, const std::string& scratch) {
    // coreutils env: an empty environment but for ours, and the scratch folder as working directory.
    std::vector<std::string> options = {"env", "-i", "-C", scratch};
    for (const auto& [name, value] : clean_environment(spec, scratch)) options.push_back(name + "=" + value);
    return options;
}

struct Captured {
    bool started = false;
    int spawn_errno = 0;
    int status = 0;  // as from waitpid
    std::string output;
};

// Runs argv with stdout and stderr captured, killing it after `seconds`.
Captured run_capturing(const std::vector<std::string>& argv, int seconds) {
    Captured result;
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("sandbox: pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    result.spawn_errno = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[1]);
    if (result.spawn_errno != 0) {
        ::close(pipe_fds[0]);
        return result;
    }
    result.started = true;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    char buffer[4096];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd readable{pipe_fds[0], POLLIN, 0};
        if (left.count() <= 0 || ::poll(&readable, 1, static_cast<int>(left.count())) == 0) {
            ::kill(pid, SIGKILL);
            result.output += "\n(killed after " + std::to_string(seconds) + " s)";
            break;
        }
        const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        result.output.append(buffer, static_cast<size_t>(got));
    }
    ::close(pipe_fds[0]);
    while (::waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
    }
    return result;
}

bool succeeded(const Captured& run) { return run.started && WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0; }

std::string read_sysctl(const std::string& path) {
    std::ifstream in(path);
    std::string value;
    in >> value;
    return value;
}

// Why bwrap could not set up its namespaces, from the sysctls that switch unprivileged user namespaces off.
std::string user_namespace_diagnosis() {
    struct Switch {
        const char* file;
        const char* name;
        const char* off_value;
        const char* fix;
    };
    const Switch switches[] = {
        {"/proc/sys/kernel/unprivileged_userns_clone", "kernel.unprivileged_userns_clone", "0",
         "sudo sysctl -w kernel.unprivileged_userns_clone=1"},
        {"/proc/sys/user/max_user_namespaces", "user.max_user_namespaces", "0", "sudo sysctl -w user.max_user_namespaces=15000"},
        {"/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "kernel.apparmor_restrict_unprivileged_userns", "1",
         "an AppArmor profile for /usr/bin/bwrap, or sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"},
    };
    std::string found;
    for (const Switch& s : switches)
        if (read_sysctl(s.file) == s.off_value)
            found += std::string(found.empty() ? "" : "; ") + "user namespaces are off: " + s.name + " = " + s.off_value + " (" + s.fix + ")";
    if (!found.empty()) return found;
    return "look at sysctl kernel.unprivileged_userns_clone, user.max_user_namespaces and "
           "kernel.apparmor_restrict_unprivileged_userns; inside a container, its runtime may forbid namespaces";
}

std::string first_line(const std::string& text) {
    const size_t start = text.find_first_not_of("\n ");
    if (start == std::string::npos) return "";
    return text.substr(start, text.find('\n', start) - start);
}

bool on_path(const std::string& tool) {
    const char* path = std::getenv("PATH");
    std::string folders = path ? path : "/usr/bin:/bin";
    size_t start = 0;
    for (;;) {
        const size_t end = folders.find(':', start);
        const std::string folder = folders.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (::access(((folder.empty() ? "." : folder) + "/" + tool).c_str(), X_OK) == 0) return true;
        if (end == std::string::npos) return false;
        start = end + 1;
    }
}

// The tools sandboxed_command puts on the command line, each with how to get it; "" when all are there.
std::string first_missing_tool() {
    if (!on_path("bwrap")) return "bubblewrap is not installed (no bwrap on PATH): sudo apt-get install bubblewrap";
    if (!on_path("prlimit")) return "util-linux's prlimit is missing (no prlimit on PATH): sudo apt-get install util-linux";
    if (running_as_root() && !on_path("setpriv"))
        return "util-linux's setpriv is missing; the grader runs as root and needs it to run students' code as an "
               "unprivileged user: sudo apt-get install util-linux";
    return "";
}

}  // namespace

std::vector<std::string> sandboxed_command(const SandboxSpec& spec, const std::vector<std::string>& argv) {
    if (argv.empty()) throw std::invalid_argument("sandbox: empty command");
    const std::string scratch = absolute_path(spec.scratch, "scratch folder");
    if (!fs::is_directory(scratch)) throw std::invalid_argument("sandbox: scratch folder " + scratch + " does not exist (prepare_scratch)");
    require_reachable_by_sandbox_user(spec, scratch, "scratch folder");

    std::vector<std::string> command = memory_cgroup_prefix(spec);
    append(command, identity_prefix(spec));
    if (spec.isolation == Isolation::Bubblewrap) {
        const std::string tree = absolute_path(spec.instructor_tree, "instructor tree");
        if (!fs::is_directory(tree)) throw std::invalid_argument("sandbox: instructor tree " + tree + " does not exist");
        require_reachable_by_sandbox_user(spec, tree, "instructor tree");
        append(command, bubblewrap_options(spec, scratch, tree));
    } else {
        append(command, unsandboxed_options(spec, scratch));
    }
    append(command, prlimit_prefix(spec));
    append(command, argv);
    return command;
}

std::vector<std::string> sandbox_warnings(const SandboxSpec& spec) {
    std::vector<std::string> warnings;
    if (spec.isolation == Isolation::Unsandboxed)
        warnings.push_back(
            "WARNING: GRADING WITHOUT A SANDBOX (asked for explicitly). Student code runs with network access and can "
            "read and write every file that " + std::string(running_as_root() ? "uid " + std::to_string(spec.unprivileged_uid) : "your user") +
            " can, including other students' submissions and the results database. Only the CPU, memory, process and "
            "file-size limits apply. Install bubblewrap and enable user namespaces to grade safely.");
    if (spec.needs_gpu && spec.limits.memory_bytes > 0 && !spec.memory_cgroup)
        warnings.push_back("GPU jobs' host memory is not limited: RLIMIT_AS breaks the CUDA runtime's virtual reservations and "
                           "systemd-run --scope -p MemoryMax= is not available here (SandboxCheck::memory_cgroup_problem says why).");
    if (spec.isolation == Isolation::Unsandboxed && !running_as_root() && spec.limits.max_processes > 0)
        warnings.push_back("Without a sandbox the process limit (" + std::to_string(spec.limits.max_processes) +
                           ") counts every process your user runs, not only the student's.");
    return warnings;
}

void prepare_scratch(const SandboxSpec& spec) {
    const std::string scratch = absolute_path(spec.scratch, "scratch folder");
    std::error_code error;
    fs::create_directories(scratch, error);
    if (error) throw std::runtime_error("sandbox: cannot create scratch folder " + scratch + ": " + error.message());
    if (!running_as_root()) return;
    require_reachable_by_sandbox_user(spec, scratch, "scratch folder");
    auto give = [&](const fs::path& path) {
        if (::lchown(path.c_str(), spec.unprivileged_uid, spec.unprivileged_gid) != 0)
            throw std::runtime_error("sandbox: cannot give " + path.string() + " to uid " + std::to_string(spec.unprivileged_uid) +
                                     ": " + std::strerror(errno));
    };
    give(scratch);
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(scratch)) give(entry.path());
}

SandboxCheck sandbox_available() {
    SandboxCheck check;
    char pattern[] = "/tmp/gpulab-sandbox-check-XXXXXX";
    if (!::mkdtemp(pattern)) throw std::runtime_error(std::string("sandbox: mkdtemp: ") + std::strerror(errno));
    const std::string folder = pattern;
    ::chmod(folder.c_str(), 0755);

    SandboxSpec spec;
    spec.instructor_tree = folder;
    spec.scratch = folder + "/scratch";
    try {
        if (const std::string missing = first_missing_tool(); !missing.empty()) {
            check.problem = missing;
            const char* path = std::getenv("PATH");
            check.error = std::string("searched PATH=") + (path ? path : "(unset)");
        } else {
            prepare_scratch(spec);
            const Captured run = run_capturing(sandboxed_command(spec, {"true"}), 30);
            check.error = run.started ? run.output : std::string("cannot start: ") + std::strerror(run.spawn_errno);
            if (succeeded(run))
                check.available = true;
            else
                check.problem = "bwrap cannot set up its sandbox (" + first_line(check.error) + "): " + user_namespace_diagnosis();
        }
    } catch (const std::exception& error) {
        check.problem = error.what();
    }
    std::error_code ignored;
    fs::remove_all(folder, ignored);

    std::vector<std::string> probe = {"systemd-run", "--quiet", "--scope", "--collect"};
    if (!running_as_root()) probe.push_back("--user");
    append(probe, {"-p", "MemoryMax=64M", "--", "true"});
    const Captured scope = run_capturing(probe, 30);
    check.memory_cgroup = succeeded(scope);
    if (!check.memory_cgroup)
        check.memory_cgroup_problem = "systemd-run --scope -p MemoryMax= does not work here: " +
                                      (scope.started ? first_line(scope.output) : std::string("systemd-run: ") + std::strerror(scope.spawn_errno));
    return check;
}

}  // namespace gpulab::grade_class
