// Grading one submission-lab in a prepared workspace, inside the sandbox: what a worker of a local batch and a
// Slurm array task (slurm_task.cpp) both do, so that both give the same verdicts.
#pragma once

#include "batch.h"
#include "intake.h"
#include "progress.h"
#include "results_db.h"
#include "workspace.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace gpulab::grade_class {

// A GPU's turn: which GPU, and the host cores its grading may use (empty: all of this process's).
struct GpuTurn {
    std::string gpu;        // as the grading's CUDA_VISIBLE_DEVICES
    std::vector<int> cpus;
};

// One GPU per grading at a time: timing must not share a GPU. Where gradings run side by side on several GPUs
// (more than one of each), each GPU also gets its own share of the host's cores (cpu_shares.h), so they do not
// slow each other down or disturb each other's timed tests; a grading that runs alone has every core.
class GpuPool {
public:
    // gradings_at_once: how many gradings may ask for a GPU at the same time (a batch's workers; 1 for a Slurm task,
    // which grades its submission-labs one after the other). turns_per_gpu: how many may grade on one GPU at once:
    // 1 where tests are timed (a timed test shares its GPU with nothing); untimed gradings (--no-timing) share them.
    GpuPool(const std::vector<std::string>& gpus, int gradings_at_once, int turns_per_gpu = 1);
    GpuTurn take();
    void give_back(const GpuTurn& turn);
    // "GPU 0 with cores 0-15, GPU 1 with cores 16-31", or "" where the cores are not split.
    std::string describe() const;

private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::vector<GpuTurn> all_;
    std::vector<GpuTurn> free_;
};

// What every grading of a batch shares: the options, the students' files as the intake took them, the seed.
struct GradingContext {
    const BatchOptions& options;
    std::map<std::string, Submission> submissions;
    std::string seed;
    Progress* progress = nullptr;
    GpuPool* gpus = nullptr;
};

// Builds and grades one submission-lab in `ws`; `worker` names who graded it (host, worker, GPU). Never throws
// for what the student's code did: that is the result's status.
LabResult grade_one(GradingContext& c, Workspace& ws, const WorkItem& item, const std::string& worker);

// A submission-lab the intake found nothing (or nothing readable) for: stored without building anything.
LabResult without_files(const GradingContext& c, const WorkItem& item, const Submission& sub, double max_points);

// Stores the submission-labs of `work` that have no files at once (nothing to build) and returns the others.
std::vector<WorkItem> store_empty_labs(GradingContext& c, ResultsDb& db, const std::vector<WorkItem>& work);

// The points a lab is worth (labs/<lab>/lab.json).
double lab_max_points(const std::string& tree, const std::string& lab);

}  // namespace gpulab::grade_class
