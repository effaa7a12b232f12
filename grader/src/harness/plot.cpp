#include "gpulab/plot.h"
#include "gpulab/child_spawn.h"
#include "gpulab/program_on_path.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
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

namespace gpulab {
namespace {

constexpr int kExitNoMatplotlib = 3;         // gpulab_plot.py: matplotlib cannot be imported
constexpr std::size_t kMaxOutput = 64 * 1024;  // of the script's output kept; the rest is dropped
const char* const kInstall = "sudo apt-get install python3-matplotlib";

// Runs argv (argv[0] a path) to its end or `limit_s`, output captured (child_spawn.h).
ToolRun run_captured(const std::vector<std::string>& args, int limit_s) { return run_tool(args, limit_s, kMaxOutput); }

// The last line of the script's output that says something: its one-line reason.
std::string last_line(const std::string& output) {
    const std::size_t end = output.find_last_not_of(" \n\r\t");
    if (end == std::string::npos) return "";
    const std::size_t newline = output.rfind('\n', end);
    const std::size_t start = newline == std::string::npos ? 0 : newline + 1;
    return output.substr(start, end + 1 - start);
}

// What a failed drawing says: its exit status and the last line it printed.
std::string script_failure(int exit_code, const std::string& output) {
    const std::string reason = last_line(output);
    return "the plotting script failed (exit status " + std::to_string(exit_code) + ")" + (reason.empty() ? "" : ": " + reason);
}

std::string ran_too_long(int time_limit_s) {
    return "the plotting script ran past its " + std::to_string(time_limit_s) + " s limit and was stopped";
}

// Which Pythons to try, in order (plot.h: draw_plot says which); none, with why in `why_none`.
std::vector<std::string> pythons_to_try(std::string* why_none) {
    std::vector<std::string> pythons;
    const char* chosen = std::getenv("GPULAB_PYTHON");
    if (chosen && *chosen) {
        if (::access(chosen, X_OK) != 0) {
            *why_none = std::string("GPULAB_PYTHON=") + chosen + " cannot be run (" + std::strerror(errno) + ")";
            return pythons;
        }
        pythons.push_back(chosen);
        return pythons;
    }
    if (is_program_file("/usr/bin/python3")) pythons.push_back("/usr/bin/python3");
    const std::string found = program_on_path("python3");
    if (!found.empty() && found != "/usr/bin/python3") pythons.push_back(found);
    if (pythons.empty()) *why_none = std::string("no Python 3 found (/usr/bin/python3, or python3 on the PATH): ") + kInstall;
    return pythons;
}

// The request as gpulab-grade's plot queue reads it (grader/runner/plot_queue.h); false where it cannot be
// written, and the picture is drawn here instead.
bool queue_request(const char* queue, const std::string& kind, const std::string& data_path,
                   const std::vector<std::string>& extra_args, int time_limit_s) {
    static int count = 0;
    const std::string name = std::string(queue) + "/" + std::to_string(::getpid()) + "-" + std::to_string(++count);
    // When it was asked for, to the nanosecond, and this process's count: the queue lists the pictures in that order
    // (a file's time is too coarse: two requests written within one tick of it came back in either order).
    const long long asked_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch()).count();
    nlohmann::json request{{"kind", kind},          {"data", data_path},  {"args", extra_args},
                           {"limit_s", time_limit_s}, {"asked_ns", asked_ns}, {"count", count}};
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
        std::string why_none;
        const std::vector<std::string> pythons = pythons_to_try(&why_none);
        if (pythons.empty()) {
            outcome.skipped_because = why_none;
            return outcome;
        }

        std::vector<std::string> without_matplotlib;
        for (const std::string& python : pythons) {
            std::vector<std::string> args{python, script, kind, data_path};
            args.insert(args.end(), extra_args.begin(), extra_args.end());
            const ToolRun run = run_captured(args, time_limit_s);
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
                outcome.skipped_because = ran_too_long(time_limit_s);
            } else if (run.signal) {
                outcome.skipped_because = "the plotting script was killed by signal " + std::to_string(run.signal) +
                                          " (" + ::strsignal(run.signal) + ")";
            } else if (run.exit_code != 0) {
                outcome.skipped_because = script_failure(run.exit_code, run.output);
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

// ---- PlotServer ---------------------------------------------------------------------------------------------

namespace {
// A server that keeps failing is not started again and again: after this many, each picture is drawn by draw_plot.
constexpr int kMaxServerStarts = 3;

// draw_plot queues where GPULAB_PLOT_QUEUE is set; a server's picture is drawn, never queued.
PlotOutcome drawn_alone(const std::string& kind, const std::string& data_path, const std::vector<std::string>& extra_args,
                        int time_limit_s) {
    const char* queue = std::getenv("GPULAB_PLOT_QUEUE");
    const std::string kept = queue ? queue : "";
    ::unsetenv("GPULAB_PLOT_QUEUE");
    PlotOutcome outcome = draw_plot(kind, data_path, extra_args, time_limit_s);
    if (!kept.empty()) ::setenv("GPULAB_PLOT_QUEUE", kept.c_str(), 1);
    return outcome;
}

}  // namespace

PlotServer::PlotServer() { start(); }

PlotServer::~PlotServer() { stop(); }

void PlotServer::start() {
    std::string why_none;
    const std::vector<std::string> pythons = pythons_to_try(&why_none);
    if (pythons.empty() || starts_ >= kMaxServerStarts || ::access(plot_script_path().c_str(), R_OK) != 0) return;
    ++starts_;
    try {
        pid_ = spawn_talking_child({pythons.front(), plot_script_path(), "--serve"}, &talk_, "the plotting script");
    } catch (const std::exception&) {
        pid_ = -1, talk_ = -1;
    }
}

void PlotServer::stop() {
    if (talk_ >= 0) ::close(talk_);  // the end of its stdin: a server that is waiting ends by itself
    if (pid_ > 0) {
        ::kill(-pid_, SIGKILL);
        while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
    pid_ = -1, talk_ = -1, ready_ = false;
    unread_.clear();
}

PlotServer::Heard PlotServer::next_line(std::string* line, std::chrono::steady_clock::time_point deadline) {
    for (;;) {
        if (const std::size_t end = unread_.find('\n'); end != std::string::npos) {
            *line = unread_.substr(0, end);
            unread_.erase(0, end + 1);
            return Heard::line;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return Heard::out_of_time;
        pollfd wait{talk_, POLLIN, 0};
        const int ready = ::poll(&wait, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
        if (ready < 0 && errno != EINTR) return Heard::ended;
        if (ready <= 0) continue;
        char chunk[4096];
        const ssize_t got = ::recv(talk_, chunk, sizeof chunk, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return Heard::ended;
        if (unread_.size() < 4 * kMaxOutput) unread_.append(chunk, static_cast<std::size_t>(got));
    }
}

PlotOutcome PlotServer::draw(const std::string& kind, const std::string& data_path,
                             const std::vector<std::string>& extra_args, int time_limit_s) {
    PlotOutcome outcome;
    try {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(time_limit_s);
        if (pid_ < 0) start();
        std::string line;
        if (pid_ > 0 && !ready_) {
            const Heard heard = next_line(&line, deadline);
            if (heard == Heard::out_of_time) {
                stop();
                outcome.skipped_because = ran_too_long(time_limit_s);
                return outcome;
            }
            ready_ = heard == Heard::line && line.find("\"ready\"") != std::string::npos;
            if (!ready_) stop();  // no matplotlib, say: draw_plot finds out which and says so
        }
        if (pid_ < 0) return drawn_alone(kind, data_path, extra_args, time_limit_s);
        std::vector<std::string> argv{kind, data_path};
        argv.insert(argv.end(), extra_args.begin(), extra_args.end());
        const std::string request = nlohmann::json(argv).dump() + "\n";
        bool sent = true;
        for (std::size_t at = 0; sent && at < request.size();) {
            const ssize_t put = ::send(talk_, request.data() + at, request.size() - at, MSG_NOSIGNAL);
            if (put < 0 && errno == EINTR) continue;
            sent = put > 0;
            if (sent) at += static_cast<std::size_t>(put);
        }
        const Heard heard = sent ? next_line(&line, deadline) : Heard::ended;
        if (heard == Heard::out_of_time) {
            stop();
            outcome.skipped_because = ran_too_long(time_limit_s);
            return outcome;
        }
        if (heard == Heard::ended) {
            // It died on this picture (or before): drawn again in a Python of its own, whose end says why.
            stop();
            return drawn_alone(kind, data_path, extra_args, time_limit_s);
        }
        const nlohmann::json answer = nlohmann::json::parse(line);
        const int status = answer.at("exit");
        outcome.output = answer.at("output");
        if (outcome.output.size() > kMaxOutput) outcome.output.resize(kMaxOutput);
        outcome.drawn = status == 0;
        if (!outcome.drawn) outcome.skipped_because = script_failure(status, outcome.output);
    } catch (const std::exception& e) {  // an answer that is not one: the server is not trusted again
        stop();
        outcome.drawn = false;
        outcome.skipped_because = std::string("the plotting script's answer cannot be read: ") + e.what();
    }
    return outcome;
}

}  // namespace gpulab
