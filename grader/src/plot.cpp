#include "gpulab/plot.h"
#include "gpulab/program_on_path.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#ifndef GPULAB_PLOT_SCRIPT_PATH
#error "the harness is compiled with GPULAB_PLOT_SCRIPT_PATH (grader/CMakeLists.txt sets it)"
#endif

extern char** environ;

namespace gpulab {
namespace {

constexpr int kExitNoMatplotlib = 3;         // gpulab_plot.py: matplotlib cannot be imported
constexpr std::size_t kMaxOutput = 64 * 1024;  // of the script's output kept; the rest is dropped
const char* const kInstall = "sudo apt-get install python3-matplotlib";

struct Run {
    bool started = false;
    std::string cannot_start;  // when not started
    bool timed_out = false;
    int exit_code = -1;        // when it exited
    int signal = 0;            // when a signal ended it
    std::string output;
};

// Runs argv (argv[0] a path) with stdout and stderr into one pipe, stdin from /dev/null, in its own
// process group, with no other descriptor of this process; kills the group after `limit_s`.
Run run_captured(const std::vector<std::string>& args, int limit_s) {
    Run run;
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        run.cannot_start = std::string("cannot make a pipe: ") + std::strerror(errno);
        return run;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
    ::posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    ::posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    ::posix_spawnattr_setsigmask(&attributes, &none);
    ::posix_spawnattr_setsigdefault(&attributes, &all);
    ::posix_spawnattr_setpgroup(&attributes, 0);
    ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

    std::vector<char*> argv;
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int spawned = ::posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attributes);
    ::close(pipe_fds[1]);
    if (spawned != 0) {
        ::close(pipe_fds[0]);
        run.cannot_start = "cannot run " + args[0] + ": " + std::strerror(spawned);
        return run;
    }
    run.started = true;

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
    const auto ms_left = [&] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    };
    // Read until the script closes its end (it exits), or the time is up.
    for (bool open = true; open;) {
        const long long left = ms_left();
        if (left <= 0) {
            run.timed_out = true;
            break;
        }
        pollfd reader{pipe_fds[0], POLLIN, 0};
        const int ready = ::poll(&reader, 1, int(std::min<long long>(left, 1000)));
        if (ready < 0 && errno != EINTR) break;
        if (ready <= 0) continue;
        char buffer[4096];
        const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) open = false;
        else if (run.output.size() < kMaxOutput) run.output.append(buffer, std::size_t(got));
    }
    ::close(pipe_fds[0]);
    const auto kill_all = [pid] {
        ::kill(-pid, SIGKILL);  // its process group: anything it started too
        ::kill(pid, SIGKILL);
    };
    if (run.timed_out) kill_all();
    int status = 0;
    for (;;) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) return run;  // reaped elsewhere: no status to report
        if (!run.timed_out && ms_left() <= 0) {
            run.timed_out = true;
            kill_all();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (run.timed_out) ::kill(-pid, SIGKILL);  // whatever it started and left behind
    if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
    return run;
}

// The last line of the script's output that says something: its one-line reason.
std::string last_line(const std::string& output) {
    const std::size_t end = output.find_last_not_of(" \n\r\t");
    if (end == std::string::npos) return "";
    const std::size_t newline = output.rfind('\n', end);
    const std::size_t start = newline == std::string::npos ? 0 : newline + 1;
    return output.substr(start, end + 1 - start);
}

// The request as gpulab-grade's plot queue reads it (grader/runner/plot_queue.h); false where it cannot be
// written, and the picture is drawn here instead.
bool queue_request(const char* queue, const std::string& kind, const std::string& data_path,
                   const std::vector<std::string>& extra_args, int time_limit_s) {
    static int count = 0;
    const std::string name = std::string(queue) + "/" + std::to_string(::getpid()) + "-" + std::to_string(++count);
    nlohmann::json request{{"kind", kind}, {"data", data_path}, {"args", extra_args}, {"limit_s", time_limit_s}};
    {
        std::ofstream out(name + ".part");
        out << request.dump() << "\n";
        if (!out) return false;
    }
    // Renamed whole: the queue never reads half a request.
    return std::rename((name + ".part").c_str(), (name + ".json").c_str()) == 0;
}

}  // namespace

std::string plot_script_path() { return GPULAB_PLOT_SCRIPT_PATH; }

PlotOutcome draw_plot(const std::string& kind, const std::string& data_path, const std::vector<std::string>& extra_args,
                      int time_limit_s) {
    PlotOutcome outcome;
    try {
        if (const char* queue = std::getenv("GPULAB_PLOT_QUEUE"); queue && *queue &&
            queue_request(queue, kind, data_path, extra_args, time_limit_s)) {
            outcome.queued = true;
            return outcome;
        }
        const std::string script = plot_script_path();
        if (::access(script.c_str(), R_OK) != 0) {
            outcome.skipped_because = "the plotting script " + script + " cannot be read (" + std::strerror(errno) + ")";
            return outcome;
        }
        // Which Pythons to try, in order.
        std::vector<std::string> pythons;
        const char* chosen = std::getenv("GPULAB_PYTHON");
        if (chosen && *chosen) {
            if (::access(chosen, X_OK) != 0) {
                outcome.skipped_because = std::string("GPULAB_PYTHON=") + chosen + " cannot be run (" + std::strerror(errno) + ")";
                return outcome;
            }
            pythons.push_back(chosen);
        } else {
            if (is_program_file("/usr/bin/python3")) pythons.push_back("/usr/bin/python3");
            const std::string found = program_on_path("python3");
            if (!found.empty() && found != "/usr/bin/python3") pythons.push_back(found);
        }
        if (pythons.empty()) {
            outcome.skipped_because = std::string("no Python 3 found (/usr/bin/python3, or python3 on the PATH): ") + kInstall;
            return outcome;
        }

        std::vector<std::string> without_matplotlib;
        for (const std::string& python : pythons) {
            std::vector<std::string> args{python, script, kind, data_path};
            args.insert(args.end(), extra_args.begin(), extra_args.end());
            const Run run = run_captured(args, time_limit_s);
            outcome.output = run.output;
            if (!run.started) {
                outcome.skipped_because = run.cannot_start;
                continue;
            }
            if (run.exit_code == kExitNoMatplotlib) {
                without_matplotlib.push_back(python);
                continue;
            }
            if (run.timed_out) {
                outcome.skipped_because = "the plotting script ran past its " + std::to_string(time_limit_s) +
                                          " s limit and was stopped";
            } else if (run.signal) {
                outcome.skipped_because = "the plotting script was killed by signal " + std::to_string(run.signal) +
                                          " (" + ::strsignal(run.signal) + ")";
            } else if (run.exit_code != 0) {
                const std::string reason = last_line(run.output);
                outcome.skipped_because = "the plotting script failed (exit status " + std::to_string(run.exit_code) +
                                          ")" + (reason.empty() ? "" : ": " + reason);
            } else {
                outcome.drawn = true;
            }
            return outcome;
        }
        if (!without_matplotlib.empty()) {
            std::string which;
            for (const std::string& python : without_matplotlib) which += (which.empty() ? "" : ", ") + python;
            outcome.skipped_because = "matplotlib is not installed (" + which + "): " + kInstall;
        }
    } catch (const std::exception& e) {  // out of memory, at worst: still no reason to stop grading
        outcome.drawn = false;
        outcome.skipped_because = std::string("could not run the plotting script: ") + e.what();
    }
    return outcome;
}

}  // namespace gpulab
