// Starting a tool as the grader's child (child_spawn.h): the one way grader/src runs another program.
#include "gpulab/child_spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <chrono>
#include <cstdlib>
#include <thread>

extern char** environ;

namespace gpulab {

std::string own_executable_path() {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::string() : self.string();
}

std::string read_text_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Starts `argv` with `env` in a process group of its own, stdout and stderr into `log`, and no descriptor of
// this process but those (the result channel is close-on-exec already; nothing else leaks either).
pid_t spawn_child(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& log,
                  const std::string& what) {
    std::vector<char*> args, envp;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) throw std::runtime_error("cannot write " + log + ": " + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid == 0) {
        // Only async-signal-safe calls between fork and exec: this process may have other threads.
        ::setpgid(0, 0);
        ::dup2(out, 1);
        ::dup2(out, 2);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) ::dup2(devnull, 0);
        if (::syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
            for (int fd = 3; fd < 4096; ++fd) ::close(fd);
        ::execve(args[0], args.data(), envp.data());
        ::_exit(127);
    }
    ::close(out);
    if (pid < 0) throw std::runtime_error("cannot start " + what + ": " + std::strerror(errno));
    ::setpgid(pid, pid);  // either side may win the race; both ask for the same group
    return pid;
}

pid_t spawn_talking_child(const std::vector<std::string>& argv, int* talk, const std::string& what) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
        throw std::runtime_error("cannot start " + what + ": no socket pair (" + std::strerror(errno) + ")");
    const pid_t pid = ::fork();
    if (pid == 0) {
        // Only async-signal-safe calls between fork and exec, as in spawn_child.
        ::setpgid(0, 0);
        ::dup2(ends[1], 0);  // dup2 clears close-on-exec on the copies
        ::dup2(ends[1], 1);
        const int devnull = ::open("/dev/null", O_WRONLY);
        if (devnull >= 0) ::dup2(devnull, 2);
        if (::syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
            for (int fd = 3; fd < 4096; ++fd) ::close(fd);
        ::execve(args[0], args.data(), environ);
        ::_exit(127);
    }
    ::close(ends[1]);
    if (pid < 0) {
        ::close(ends[0]);
        throw std::runtime_error("cannot start " + what + ": " + std::strerror(errno));
    }
    ::setpgid(pid, pid);
    *talk = ends[0];
    return pid;
}

ToolRun run_tool(const std::vector<std::string>& argv, int limit_s, std::size_t max_output) {
    ToolRun run;
    char log[] = "/tmp/gpulab-tool-XXXXXX";
    const int fd = ::mkstemp(log);
    if (fd < 0) {
        run.cannot_start = std::string("cannot make a temporary file: ") + std::strerror(errno);
        return run;
    }
    ::close(fd);
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
    pid_t pid = -1;
    try {
        pid = spawn_child(argv, env, log, argv.front());
    } catch (const std::exception& e) {
        run.cannot_start = e.what();
        ::unlink(log);
        return run;
    }
    run.started = true;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
    int status = 0;
    for (;;) {
        const pid_t done = ::waitpid(pid, &status, limit_s > 0 ? WNOHANG : 0);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) break;  // reaped elsewhere: no status to report
        if (limit_s > 0 && !run.timed_out && std::chrono::steady_clock::now() >= deadline) {
            run.timed_out = true;
            ::kill(-pid, SIGKILL);  // its process group: anything it started too
            ::kill(pid, SIGKILL);
        }
        if (limit_s > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (run.timed_out) ::kill(-pid, SIGKILL);  // whatever it started and left behind
    if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
    run.output = read_text_file(log);
    if (run.output.size() > max_output) run.output.resize(max_output);
    ::unlink(log);
    // spawn_child's child exits 127 where exec fails: the program could not be started.
    if (run.exit_code == 127 && run.output.empty()) {
        run.started = false;
        run.cannot_start = "cannot run " + argv.front();
    }
    return run;
}

}  // namespace gpulab
