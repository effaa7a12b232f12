#include "gpulab/plot.h"
#include "gpulab/child_spawn.h"
#include "gpulab/program_on_path.h"

#include <fcntl.h>
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
