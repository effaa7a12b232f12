// The GPU's counters of one launch function call, read in the process that makes it (issue 43, item 1).
//
// Why in-process. The counters used to come from a second grader process run under Nsight Compute (`ncu`), which
// made one to four launches of each timed size on buffers of its own: a kernel could tell those launches from the
// timed ones (their input, their place in the process) and do the taught work only there. Now the timing process
// itself reads the counters of timed samples it draws at random (timing.cpp), through CUPTI's range profiler with
// kernel replay, the library ncu is built on. Measured on an H100 (2026-12-06, a lab-02-like 8192^2 stencil):
//  - a launch timed with CUDA events takes the same time with the profiler enabled and between profiled samples as
//    with none (0.2659 against 0.2656 ms; 0.4467 against 0.4460 ms);
//  - the same process under `ncu --nvtx-include` with a range around the drawn samples only: every launch, profiled
//    or not, took 12-19% longer (0.317 against 0.266 ms), and ncu's start-up cost 1.5 s more;
//  - reading 21 metrics (6 passes) of one launch: 92 ms; the first read of a kernel 265 ms (its SASS is patched
//    for the smsp__sass_* metrics once).
// So the drawn samples are profiled here, and no launch is profiled that the clock does not also see.
//
// CUPTI's range profiler accepts the hardware metrics and the patched smsp__sass_* ones this grader reads, but not
// ncu's launch__* attributes (block size, registers, occupancy limits) nor sm__maximum_warps_per_active_cycle_pct:
// those come from the launch as it was recorded (launch_recorder.h) and the CUDA occupancy calculation
// (access_diagnosis.h), under the same names, so the report reads one map either way (launch_metrics below).
#pragma once

#include "gpulab/profile_limits.h"

#include "gpulab/gpu_profile.h"
#include "gpulab/launch_recorder.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gpulab {

// Which metrics a read collects. `check`: what the agreement with CPU execution mode's count compares (global and
// shared loads, few passes); `full`: everything Report.GpuProfile shows.
enum class CounterList { check, full };

// The metric names of a list (those CUPTI refuses on this GPU are left out when it is set up).
std::vector<std::string> counter_metrics(CounterList list, bool count_shared_bytes);


struct SampleCounters {
    std::vector<ProfiledKernel> kernels;  // one per kernel launched, in launch order
    std::string error;                    // "" when every kernel was read
    bool launch_at_fault = false;         // the error lies in the launch (too many kernels, a kernel failed)
    bool launched = false;                // the launch ran (a read that failed before it did leaves that to the caller)
    int passes = 0;                       // replay passes of each kernel
    double seconds = 0;                   // the whole read, replays included
};

// Whether this process can read the GPU's counters; *why says why not: the machine's reasons only (no GPU, CPU
// execution mode, counters refused to this user, a GPU CUPTI does not support, another profiler attached).
bool counters_readable(std::string* why = nullptr);

// Runs `launch` once with every kernel it launches profiled (kernel replay: each kernel runs once per pass, its
// memory restored between passes, so the launch's result is what one launch leaves). The caller names the kernels
// (it records the launch: `launches`, in order) and adds launch_metrics. Synchronizes the device.
SampleCounters read_counters(const std::function<void()>& launch, CounterList list);

// Hands the GPU's counters back: while CUPTI's range profiler is enabled in one process, every other process that
// asks for the counters is refused (CUPTI_ERROR_HARDWARE_BUSY), and a grading of several labs at once on one GPU
// would lose its drawn samples. The profiling lock's last holder calls it (gpu_profile.h: GpuProfileLock), so the
// counters are held only while that lock is; the next read enables the profiler again.
void release_counters();

// ncu's launch__* attributes of a recorded launch, and sm__maximum_warps_per_active_cycle_pct, under ncu's names
// (gpu_profile.h, ncu_metric): block and grid size, registers, static and dynamic shared memory per block.
std::map<std::string, double> launch_metrics(const RecordedLaunch& launch);

}  // namespace gpulab
