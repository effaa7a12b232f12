// Pictures from the data a grader writes: a test writes its numbers (CSV or JSON) into the artifacts
// folder, and draw_plot() hands the file to grader/plots/gpulab_plot.py, which draws it with matplotlib
// (Debian's python3-matplotlib) in a child process. A missing Python or matplotlib, a failed or hung
// script: the outcome says why no picture was drawn, and grading goes on. Nothing here throws.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace gpulab {

struct PlotOutcome {
    bool drawn = false;
    // Handed to gpulab-grade, which draws it beside the tests that follow and names, after the lab's grade,
    // any picture it could not draw (GPULAB_PLOT_QUEUE: a Python start and a matplotlib import cost 1.3 to
    // 2 s a picture on an H100 host, about 15 s of grading all seven labs).
    bool queued = false;
    std::string skipped_because;  // when neither: why, in one line a person can act on
    std::string output;           // the script's stdout and stderr ("wrote PATH" per picture)
    bool drawn_or_queued() const { return drawn || queued; }
};

// Runs `gpulab_plot.py <kind> <data_path> <extra_args...>` (kinds: heat2d-scaling, heat-maps,
// matmul-study; the script's --help lists their data and options) and waits at most `time_limit_s`,
// then kills it. The Python is $GPULAB_PYTHON if set, else /usr/bin/python3 (Debian's, where
// python3-matplotlib installs), else python3 on the PATH; without $GPULAB_PYTHON, a Python that lacks
// matplotlib is passed over for the next one. Where $GPULAB_PLOT_QUEUE names a folder (gpulab-grade sets it
// for the lab graders), the request is written there instead and the outcome is `queued`.
PlotOutcome draw_plot(const std::string& kind, const std::string& data_path,
                      const std::vector<std::string>& extra_args = {}, int time_limit_s = 120);

// One Python that has imported matplotlib already, drawing picture after picture (`gpulab_plot.py --serve`): a
// picture then costs its drawing alone, not a Python start and a matplotlib import as well (1.3 to 2 s a picture on
// an H100 host). gpulab-grade's plot queue keeps one per worker, started with the lab's grading, so the import is
// done while the first tests run. The Python is the one draw_plot would try first. Where the server cannot start or
// ends before answering (no matplotlib, a crash), the picture is drawn by draw_plot instead, whose outcome says why
// it could not be; a picture past its time limit is stopped with its server, and the next picture starts another.
class PlotServer {
public:
    PlotServer();  // starts the Python at once and does not wait for it
    ~PlotServer();
    PlotServer(const PlotServer&) = delete;
    PlotServer& operator=(const PlotServer&) = delete;

    // As draw_plot, never queued; the time limit counts from the call, a server's start included.
    PlotOutcome draw(const std::string& kind, const std::string& data_path,
                     const std::vector<std::string>& extra_args = {}, int time_limit_s = 120);

private:
    void start();
    void stop();
    enum class Heard { line, ended, out_of_time };
    Heard next_line(std::string* line, std::chrono::steady_clock::time_point deadline);

    pid_t pid_ = -1;
    int talk_ = -1;
    bool ready_ = false;
    int starts_ = 0;
    std::string unread_;
};

// Where the plotting script is (the source tree's grader/plots/gpulab_plot.py).
std::string plot_script_path();

}  // namespace gpulab
