// The pictures of one lab's grading, drawn beside its tests rather than inside them. A picture costs a Python
// start and a matplotlib import (1.3 to 2 s on an H100 host): drawn inside a report test, every picture sat on
// the grading's critical path, about 15 s of grading all seven labs. The lab's grader processes get
// GPULAB_PLOT_QUEUE (gpulab/plot.h) and write each request into the queue's folder; two worker processes forked
// from gpulab-grade draw them while the tests go on, each with a Python that imported matplotlib as the lab's grading
// began (gpulab/plot.h: PlotServer), and finish() waits for the last.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace gpulab::runner {

struct QueuedPicture {
    std::string picture;  // the --out path, else the data file it is drawn from
    bool drawn = false;
    std::string skipped_because;
};

class PlotQueue {
public:
    // Makes <work_dir>/plot-queue afresh and starts the workers. A request may read and write only under
    // `work_dir` (the lab's logs and artifacts): one naming another place is refused, not drawn.
    explicit PlotQueue(const std::string& work_dir);
    ~PlotQueue();
    PlotQueue(const PlotQueue&) = delete;
    PlotQueue& operator=(const PlotQueue&) = delete;

    // What GPULAB_PLOT_QUEUE says to the lab's graders.
    const std::string& folder() const { return folder_; }

    // Waits until every request so far is drawn (or refused, or past its time limit) and the workers have
    // ended; each picture's outcome, in the order they were asked for. Only the first call waits.
    std::vector<QueuedPicture> finish();

private:
    std::string work_dir_, folder_;
    std::vector<pid_t> workers_;
};

}  // namespace gpulab::runner
