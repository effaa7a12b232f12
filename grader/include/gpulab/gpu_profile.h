// The GPU's own counters of a lab's timed launches, read on timed samples drawn at random in the process that times
// them (issue 43).
//
// Why drawn timed samples. A check is only as strong as its most predictable part, and a student can read this file.
// The counters used to come from a second grader process under Nsight Compute, which ran each timed launch once or
// twice on buffers filled with 0.5: a kernel could do the taught work only there (probing its input for a constant
// fill, counting its own launches, reading a clock). Now the speed test's timing loop (timing.cpp) draws, from a
// random source the printed seed does not give, which of the student's timed samples to profile, anywhere in the
// sequence, and reads those launches' counters in this process (sample_counters.h); a drawn sample is left out of
// the median. Enough are drawn that a kernel doing other work on more than half of a launch's samples is caught with
// probability at least 99% in every grading (drawn_samples_for: with 21 samples, 6 are drawn: if 11 or more do other
// work, the chance that all 6 miss them is C(10,6)/C(21,6) = 210/54264 = 0.39%). Each drawn sample's global and
// shared loads per output must agree with CPU execution mode's count of the same launch (counted_work.h), by the
// rule of check_drawn_sample below. The reference is drawn once per timed launch, the expert once where
// Report.Roofline times it: the rows Report.GpuProfile puts beside the student's.
//
// Where the samples live. In the timing process, gpu_profile() is the samples it drew (add_drawn_sample). A speed
// test records its samples in the property "drawn_counters"; gpulab-grade hands them to the graders it starts later
// (Technique.SameWorkOnGpu, Report.AccessAnalysis: result_channel.h), whose gpu_profile() is those samples.
//
// Where counters cannot be read for the machine's reasons (no GPU, CPU execution mode, counters refused to this
// user), the profile is unavailable with the reason and the checks built on it are "not run". Where a drawn sample
// cannot be read because of the launch (more kernels than the grader profiles, a kernel that fails under replay),
// the speed points wait and the message says why (timing.cpp).
#pragma once

#include "gpulab/read_counter.h"

#include "gpulab/lab_config.h"

#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpulab {

struct CountedWork;

// The metrics, by the names Nsight Compute and CUPTI share (the PerfWorks names: ncu is built on CUPTI). There is no
// thread-level load/store instruction count per memory space (smsp__sass_thread_inst_executed_op_global_ld.sum: CUPTI
// refuses it on an H100, ncu 2025.3.1 on an H200), but there are the BYTES the threads' loads and stores asked for, per
// memory space (smsp__sass_data_bytes_mem_*, patched into the kernel's SASS), which is what CPU execution mode counts
// too. The launch__* names are ncu's attributes of a launch; CUPTI's range profiler does not collect them, and the
// grader fills them from the recorded launch (sample_counters.h, launch_metrics).
namespace ncu_metric {
inline constexpr const char* kDuration = "gpu__time_duration.sum";
// Global memory: bytes the threads loaded and stored (a float: 4 per thread and instruction, a float4: 16), warp-level
// requests and the 32-byte sectors they touched (coalescing: sectors per request).
inline constexpr const char* kGlobalLoadBytes = "smsp__sass_data_bytes_mem_global_op_ld.sum";
inline constexpr const char* kGlobalStoreBytes = "smsp__sass_data_bytes_mem_global_op_st.sum";
inline constexpr const char* kGlobalLoadRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kGlobalLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kGlobalStoreRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
inline constexpr const char* kGlobalStoreSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
// Shared memory: bytes loaded and stored by the threads, warp-level requests, bank conflicts. The bytes come from
// patching every shared load and store (smsp__sass_*), which costs time in proportion to the shared accesses executed:
// 3.3 s of lab 07's 6.7 s profile of its four timed products on an H200 (2026-11-29), where lab.json may leave them out
// (shared_bytes_counted below). The requests are hardware counters: on that H200 they gave the very counts the
// patched smsp__sass_inst_executed_op_shared_ld/st gave (lab 04's six and lab 07's four timed kernels), unpatched.
inline constexpr const char* kSharedLoadBytes = "smsp__sass_data_bytes_mem_shared_op_ld.sum";
inline constexpr const char* kSharedStoreBytes = "smsp__sass_data_bytes_mem_shared_op_st.sum";
inline constexpr const char* kSharedLoadRequests = "smsp__inst_executed_op_shared_ld.sum";
inline constexpr const char* kSharedStoreRequests = "smsp__inst_executed_op_shared_st.sum";
inline constexpr const char* kSharedLoadConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
inline constexpr const char* kSharedStoreConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
// DRAM.
inline constexpr const char* kDramRead = "dram__bytes_read.sum";
inline constexpr const char* kDramWrite = "dram__bytes_write.sum";
// Occupancy achieved (the theoretical one, and the limit that binds it, is the CUDA occupancy calculation of the
// recorded launch: access_diagnosis.h, as CPU execution mode computes it).
inline constexpr const char* kAchievedOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kRegisters = "launch__registers_per_thread";
inline constexpr const char* kBlockSize = "launch__block_size";
inline constexpr const char* kGridSize = "launch__grid_size";
inline constexpr const char* kSharedStatic = "launch__shared_mem_per_block_static";    // bytes
inline constexpr const char* kSharedDynamic = "launch__shared_mem_per_block_dynamic";  // bytes
// Local memory (spills): bytes the threads loaded and stored.
inline constexpr const char* kLocalLoadBytes = "smsp__sass_data_bytes_mem_local_op_ld.sum";
inline constexpr const char* kLocalStoreBytes = "smsp__sass_data_bytes_mem_local_op_st.sum";
// Branch uniformity: 1 - divergent branch targets / branch targets. (ncu's own percentage, kBranchUniform, reads 0 for
// a kernel without branch instructions, its conditions predicated: an H200 gave 0% for lab 01's step kernel; not
// asked for, read where present.)
inline constexpr const char* kBranchUniform = "smsp__sass_average_branch_targets_threads_uniform.pct";
inline constexpr const char* kBranchTargets = "smsp__sass_branch_targets.sum";
inline constexpr const char* kBranchDivergent = "smsp__sass_branch_targets_threads_divergent.sum";
// Working lanes per warp instruction: the threads that ran each instruction with its predicate true, over the warp
// instructions. Branch uniformity cannot tell a warp split by threadIdx.x % 2 from a reference: an H200 (2026-12-07)
// read 54-60% for labs 05 and 06's references (their loops' exit branches) and 83-86% for their parity-split
// variants. Where this ratio is low, the drawn sample's memory instructions are counted one by one
// (instruction_counters.h), and their lanes say whether the memory requests run with idle lanes (divergent-warps).
inline constexpr const char* kWarpInstructions = "smsp__sass_inst_executed.sum";
inline constexpr const char* kWorkingLaneInstructions = "smsp__sass_thread_inst_executed_pred_on.sum";
// Barrier stalls: warps waiting at a barrier for the rest of their block, beside all active warps (cycles summed over
// the SMs' schedulers); their ratio is Nsight Compute's smsp__warp_issue_stalled_barrier_per_warp_active.
inline constexpr const char* kBarrierStalledWarps = "smsp__warps_issue_stalled_barrier.sum";
inline constexpr const char* kActiveWarps = "smsp__warps_active.sum";
}  // namespace ncu_metric

// The metric global loads are compared in: ncu_metric::kGlobalLoadBytes, or $GPULAB_NCU_GLOBAL_LOAD_METRIC (another
// name for it, in bytes; added to the lists).
std::string global_load_metric();

// Whether the drawn samples count the bytes of the threads' shared loads and stores (kSharedLoadBytes,
// kSharedStoreBytes): yes, unless lab.json's "gpu_profile" says "shared_bytes": false (lab 07, whose tiled products
// execute 2.7 billion shared loads at N = 4096: patching each costs seconds). Where they are left out, *why says so
// in one line for the table; CPU execution mode's access analysis still counts them exactly.
bool shared_bytes_counted(std::string* why = nullptr);
bool shared_bytes_counted(const Json& lab, std::string* why);  // from a given lab.json

// Whether Report.GpuProfile draws a sample of `suite` when nothing was counted of it: lab.json "gpu_profile":
// {"suites": [...]} names the suites drawn where profiling the others costs more than their figures are worth (lab
// 07's naive 4096^3 products); *why says so. A counted launch (the technique's) is always drawn.
bool profiled_suite(const std::string& suite, std::string* why = nullptr);

// The timed launch the expert's drawn sample stands beside in Report.GpuProfile (issue 35, item 1): the one Report.Roofline
// times the expert at. Registered from a static initializer (the maker runs once lab.json is readable):
//     const bool kExpertBeside = gpulab::set_expert_beside([] { return gpulab::TimedLaunchName{"TiledStep", "8192x8192"}; });
struct TimedLaunchName {
    std::string suite, instance;
};
bool set_expert_beside(std::function<TimedLaunchName()> make);
TimedLaunchName expert_beside();  // empty where the lab registered none (or its maker threw)

// One kernel profiled.
struct ProfiledKernel {
    std::string name;                        // the kernel's name as the compiler knows it
    std::map<std::string, double> metrics;   // metric name -> value in base units; NaN where none was read
    // Its launch's line in the student's source, quoted (SourceLine::quoted(); "" where not known), and its
    // configuration ("grid 96x1x1, block 256x1x1, ..."): where a launch's cause (block size, occupancy) lies.
    std::string launch_line, configuration;
    double metric(const std::string& name) const;  // NaN where absent
};

// The kernels one drawn sample ran, in launch order.
struct ProfiledLaunch {
    std::string role = "yours";         // "yours", "reference" (the reference's kernels), "expert"
    std::string suite, instance, call;  // of the timed launch: "TiledStep", "8192x8192", "launch_step_tiled at ..."
    int sample = 0, samples = 0;        // which timed sample was drawn, of how many (1-based)
    bool full = false;                  // read with every metric (CounterList::full), not only the compared ones
    std::vector<ProfiledKernel> kernels;
    std::string error;                  // the sample could not be read (then kernels may be empty)
    bool launch_at_fault = false;       // ... because of the launch (more kernels than profiled, a failed kernel)
    // The kernels the sample launched, profiled or not, and the first one's line and configuration (the student's
    // samples): what a launch too many kernels for the profiler still shows (launch-overhead).
    std::size_t kernels_launched = 0;
    std::string first_launch_line, first_configuration;
    double seconds = 0;                 // the read, replays included
    std::string device;                 // the GPU's name
    // The student's full sample only: each memory instruction's counts and line (instruction_counters.h), and why
    // there are none or some lines are unknown.
    std::vector<InstructionCount> instructions;
    std::vector<std::string> instruction_lines;
    std::string instructions_why;
    std::vector<std::pair<std::string, double>> barrier_lines;  // InstructionCounts::barrier_lines
    double instructions_seconds = 0;  // that count's run and line lookup (in `seconds` too): what naming lines costs
    // Summed over its kernels; NaN where a kernel lacks the metric.
    double total(const std::string& metric) const;
    std::string which() const;  // "timed sample 14 of 21"
};

struct GpuProfile {
    bool available = false;
    std::string why;  // when !available: the reason, what to do about it
    std::vector<ProfiledLaunch> launches;
    std::string device;     // the GPU's name
    double seconds = 0;     // the reads, replays included, all samples
    std::string expert_why;  // why it has no expert rows ("" where it has them): one line for the report
    // The first sample of (suite, instance) run with `role`'s kernels that was read with every metric, else the first
    // read at all; null when there is none.
    const ProfiledLaunch* find(const std::string& suite, const std::string& instance,
                               const std::string& role = "yours") const;
    // The same at whatever size of `suite`.
    const ProfiledLaunch* find_in_suite(const std::string& suite, const std::string& role) const;
    // Every drawn sample of (suite, instance, role), in the order drawn.
    std::vector<const ProfiledLaunch*> drawn(const std::string& suite, const std::string& instance,
                                             const std::string& role = "yours") const;
};

// The samples of this process, or those handed over to it (above). Never throws.
const GpuProfile& gpu_profile();

// timing.cpp: a drawn sample read (or not) in this process; the machine's reason none could be read, where it tried.
void add_drawn_sample(const ProfiledLaunch& sample);
void note_counters_unreadable(const std::string& why);
// timing.cpp: the student's launch `key` (counted_work_key) was timed in this grading, a sample of it drawn or not,
// and whether its series stopped early because the launch failed its audit or could not be profiled (property
// "timed_launches", handed over). Technique.SameWorkOnGpu tells by it a launch whose speed test was left out
// (--time-only) from one timed, and does not vouch for a launch whose later samples nobody saw.
enum class TimedSeries { not_timed, timed, stopped_by_the_launch };
void note_timed_launch(const std::string& key, TimedSeries series);
TimedSeries timed_series_of(const std::string& key);
// This process's samples of the current test, as JSON (the property "drawn_counters" and the handover).
nlohmann::json drawn_samples_json(const std::vector<ProfiledLaunch>& samples);
std::vector<ProfiledLaunch> drawn_samples_of(const nlohmann::json& j);

// How many of `samples` timed samples to draw so that a launch doing other work on more than half of them is drawn
// at least once with probability >= 1 - miss (hypergeometric; 6 of 21, 5 of 15 at miss 1%). At most `samples`.
int drawn_samples_for(int samples, double miss = 0.01);
// The chance that `drawn` of `samples` all miss `other` samples doing other work (for the arithmetic in messages).
double chance_all_miss(int samples, int other, int drawn);

// Which of `samples` timed samples to draw (0-based, sorted), `count` of them, from a random source the run's
// printed seed does not give (std::random_device): a class grading must not be predictable from its inputs.
std::vector<int> draw_samples(int samples, int count);

// One profiling session per GPU at a time, and nothing profiled beside a timed test. Two processes reading counters
// of one GPU at once fail ("An error was reported by the driver": four gradings side by side on an H200 lost 35 of
// their 48 profiles so), and a profile's replays beside a timed test would slow it. So every test lab.json marks
// "timing" in a GPU grader (main/grader_main.cpp) holds an exclusive lock on a file named for the GPUs the process sees
// (/tmp/gpulab-ncu-<CUDA_VISIBLE_DEVICES or all>.lock, or $GPULAB_PROFILE_LOCK): the drawn samples are read inside
// timed tests. Re-entrant within a process.
class GpuProfileLock {
public:
    GpuProfileLock();
    ~GpuProfileLock();
    GpuProfileLock(const GpuProfileLock&) = delete;
    GpuProfileLock& operator=(const GpuProfileLock&) = delete;
};

// ---- The check -----------------------------------------------------------------------------------------------

// Whether a drawn sample did the work CPU execution mode counted for the same launch (counted_work.h). Both figures
// are the bytes the threads asked for, over the element size, per output element:
//  - global: the GPU's may exceed CPU execution mode's by 25% + 0.25 elements per output, one-sided: CPU mode counts
//    a sample of blocks in which edge and corner blocks are over-represented (a tiled stencil's edge block reads a
//    few % more or less than an interior one), and a GPU path that reads less is no cheat; a cheat reads several
//    times more (lab 02's tiled stencil reading its neighbours from global memory: 5 per cell against the tile's
//    1.31; lab 07's product without its tile: 16x);
//  - shared (where both sides counted it): the GPU's must be at least CPU mode's / 1.25 - 0.25: a kernel that
//    computes from its tile where it is counted and from global memory on the GPU reads far less shared memory there.
//    Per output where CPU execution mode counted its blocks whole; per value staged in shared memory where it counted
//    each block up to a budget of accesses (labs 05 and 06: CountedWork::shared_per_staged).
// On lab 02 at 8192^2 (H200, ncu 2025.3.1): the reference's tiled kernel 1.313 floats per cell on the GPU, 1.312 in
// CPU execution mode; the naive kernel 5.002.
struct DrawnSampleVerdict {
    bool compared = false;  // both figures were there
    bool agree = true;
    double gpu = 0, cpu = 0;  // global elements read per output
    double gpu_shared = std::numeric_limits<double>::quiet_NaN(), cpu_shared = std::numeric_limits<double>::quiet_NaN();
    bool shared_per_staged = false;  // the shared figures are per value staged, not per output (labs 05, 06)
    std::string message;  // a disagreement, or why nothing was compared
};
inline constexpr double kAgreementRelative = 0.25, kAgreementAbsolute = 0.25;
DrawnSampleVerdict check_drawn_sample(const ProfiledLaunch& drawn, const CountedWork& counted);

// The rule in words, for the grade table's threshold column.
std::string drawn_sample_rule();

}  // namespace gpulab

// At the top of a test that reads the GPU's counters: where they cannot be read (no GPU, counters refused), the test
// is "not run" with the reason, and holds back no test that requires it (skip_holds_back).
#define GPULAB_REQUIRE_GPU_COUNTERS()                                                        \
    do {                                                                                     \
        const ::gpulab::GpuProfile& gpulab_profile_ = ::gpulab::gpu_profile();               \
        if (!gpulab_profile_.available) {                                                    \
            ::testing::Test::RecordProperty("skip_holds_back", "no");                        \
            GTEST_SKIP() << "the GPU's counters were not read: " << gpulab_profile_.why;     \
        }                                                                                    \
    } while (0)
