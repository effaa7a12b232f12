#include "child_process.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace gpulab::runner {

std::string ExitStatus::describe() const {
    if (killed_by_watchdog) return "stopped by the grader's watchdog (no progress)";
    if (exited) return "exit code " + std::to_string(code);
    const char* name = strsignal(signal);
    return std::string("killed by signal ") + std::to_string(signal) + " (" + (name ? name : "?") + ")";
}

ExitStatus run_child(const ChildSpec& spec, const std::function<bool()>& still_alive) {
    if (spec.argv.empty()) throw std::logic_error("run_child: empty command");
    const int log = ::open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log < 0) throw std::runtime_error("cannot open log file " + spec.log_path);

    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(log);
        throw std::runtime_error("fork failed");
    }
    if (pid == 0) {
        // Own process group, so a kill also reaches anything the child started.
        ::setpgid(0, 0);
        ::dup2(log, STDOUT_FILENO);
        ::dup2(log, STDERR_FILENO);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
        // Out of the way first (a source may already sit on another's target number), then into place;
        // dup2 leaves the copy without close-on-exec.
        std::vector<std::pair<int, int>> moved;
        for (const auto& [here, there] : spec.inherit) moved.emplace_back(::fcntl(here, F_DUPFD_CLOEXEC, 64), there);
        for (const auto& [here, there] : moved) ::dup2(here, there);
        for (const auto& [key, value] : spec.env) ::setenv(key.c_str(), value.c_str(), 1);
        if (!spec.cpus.empty()) {
            cpu_set_t set;
            CPU_ZERO(&set);
            for (const int cpu : spec.cpus) CPU_SET(cpu, &set);
            // Keeping to its cores spares the process beside it; failing to (cores taken away since) costs only
            // that, so the child runs on all of its parent's cores and the log says so.
            if (::sched_setaffinity(0, sizeof set, &set) != 0) {
                const std::string message = std::string("note: running on all cores, not the ones given: ") + std::strerror(errno) + "\n";
                [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, message.data(), message.size());
            }
        }
        std::vector<char*> argv;
        for (const std::string& arg : spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
        argv.push_back(nullptr);
        ::execvp(argv[0], argv.data());
        const std::string message = std::string("cannot run ") + argv[0] + ": " + std::strerror(errno) + "\n";
        [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, message.data(), message.size());
        ::_exit(127);
    }
    ::close(log);

    ExitStatus status;
    for (;;) {
        int raw = 0;
        const pid_t done = ::waitpid(pid, &raw, WNOHANG);
        if (done == pid) {
            status.exited = WIFEXITED(raw);
            status.code = status.exited ? WEXITSTATUS(raw) : 0;
            status.signal = WIFSIGNALED(raw) ? WTERMSIG(raw) : 0;
            break;
        }
        if (!still_alive()) {
            ::kill(-pid, SIGKILL);
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &raw, 0);
            status.killed_by_watchdog = true;
            status.signal = SIGKILL;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return status;
}

}  // namespace gpulab::runner
