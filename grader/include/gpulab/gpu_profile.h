// The GPU's own counters for a lab's timed launches (issue 34, item 3; issue 35, item 1 reads the same run).
//
// How it runs. Like the sanitizer pass (sanitizer_check.h): the grader starts a GPU grader binary as a child
// under Nsight Compute's CLI (`ncu`), with only one workload to run: every registered timed launch of the lab
// (launch_geometry.h, timed_launches()), each once, for real, on buffers of the timed size filled with the float
// 0.5 (the word 0x3F000000, as CPU execution mode's timed count fills its own), outside any timed window. Each
// timed launch runs inside an NVTX range named after its number ("gpulab launch 3"); ncu profiles only kernels
// inside such a range and prints the range beside each, so every profiled kernel is attributed to its launch,
// whatever the launch function runs. Then, where the reference's library is known, the first timed launch of each suite again through
// the same launch code with the reference's kernels serving the student's role (ProfiledLaunch::role "reference").
// Then, where the build has the lab's expert kernels (instructor-only: gpulab/expert.h), the expert launches the lab
// registered (add_expert_launches below), role "expert": each beside one student's timed launch (suite, instance), on
// buffers of that launch's sizes. The three are what Report.GpuProfile shows side by side (gpu_profile_report.h).
// Where a full run of the same grader and libraries on this kind of GPU was kept (the comparison cache,
// gpu_profile.cpp), the child runs the student's launches only and the other rows come from the kept run.
// One `ncu` process per lab (its start-up is most of the cost), one short fixed metric list, CSV in base units into a
// log file, parsed here. The child gets the GPU libraries by the environment (GPULAB_SOLUTION_LIB,
// GPULAB_REFERENCE_LIB, GPULAB_EXPERT_LIB where there is an expert), no handshake and no result channel, HOME and
// TMPDIR in a fresh folder (ncu wants a writable home and its lock file; class grading's sandbox user has neither
// elsewhere).
//
// Where the expert comes from: in a GPU grader, the companion "<lab>/expert" gpulab-grade handed over
// (companion_path); in CPU execution mode, the build manifest's "expert": {"gpu": {"library": ...}} where that file
// exists. Where there is none (a student release, a build without the expert) the profile has no expert rows and
// GpuProfile::expert_why says why in one line: not an error. An expert launch that fails is recorded as failed like any
// other (ProfiledLaunch::error) and costs the student's rows nothing.
//
// Which binary is profiled. In a GPU grader: this binary. In a CPU-execution-mode grader (where the technique tests
// that count run, "run_in": "cpu"): the lab's GPU grader and the GPU build of the same solution, found through the
// build's lab manifest (<build>/gpulab-labs/<lab>.json), when this machine has an NVIDIA GPU. So the test that has
// CPU execution mode's count of a timed launch in hand compares it with the GPU's counters of the same launch in
// one process (check_gpu_counters_agree), without another process's figures to trust.
//
// Where counters cannot be read (no GPU, no GPU build, no ncu, ERR_NVGPUCTRPERM, a profiling error, NaN counters)
// the profile is unavailable with the reason, and the checks built on it are "not run".
//
// Wiring a lab (lab 02 is wired: grader/labs/02-heat-2d/gpu_counters.cpp, Technique.SameWorkOnGpu, "run_in": "cpu",
// required by Speed.TiledThroughput). For another lab, a test of the same shape in its grader folder (sources there
// are globbed), called with the lab's timed-launch suite and CPU execution mode's count of that launch
// (count_timed_launch, with options.shared.on for the shared figure): bytes read from every buffer over bytes written
// to the output give elements read per output when input and output elements have one size.
//   lab 03 (blur):     suite of launch_blur_tiled's timed launch, element_bytes 1 (uchar), outputs = pixels x 3.
//   lab 04 (3D 8^3):   the tiled stencil's suite at 512^3, element_bytes 4, outputs = interior cells.
//   lab 05/06 (3D):    the coarsened / register-tiled stencil's suite, element_bytes 4, outputs = interior cells
//                      (their timed counts sample pages: TimedLaunchCount::bytes_read scales them back).
//   lab 07 (matmul):   matmul_tiled's suites at both timed sizes, element_bytes 4, outputs = m x n; elements read per
//                      output is then 2k / (tile reuse): the shared-memory figure (cpu_shared_elements_read_per_output)
//                      is the one that proves the tile (item 4).
// Each lab's timed launches are profiled in the same single ncu run, whichever test asks first.
#pragma once

#include "gpulab/lab_config.h"
#include "gpulab/launch_geometry.h"

#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace gpulab {

// The metrics asked for, as ncu names them. Verified on an H200 with ncu 2025.3.1 (--query-metrics, and a profile of
// lab 02's kernels): that ncu has no thread-level load/store instruction counts per memory space
// (smsp__sass_thread_inst_executed_op_global_ld.sum is not among its metrics; a name ncu does not know is left out
// of its CSV without an error), but it has the BYTES the threads' loads and stores asked for, per memory space
// (smsp__sass_data_bytes_mem_*), which is what CPU execution mode counts too.
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
// Occupancy: achieved, theoretical and its limiters (blocks per SM each resource allows).
inline constexpr const char* kAchievedOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kTheoreticalOccupancy = "sm__maximum_warps_per_active_cycle_pct";
inline constexpr const char* kLimitRegisters = "launch__occupancy_limit_registers";
inline constexpr const char* kLimitShared = "launch__occupancy_limit_shared_mem";
inline constexpr const char* kLimitBlocks = "launch__occupancy_limit_blocks";
inline constexpr const char* kLimitWarps = "launch__occupancy_limit_warps";
inline constexpr const char* kRegisters = "launch__registers_per_thread";
inline constexpr const char* kBlockSize = "launch__block_size";
inline constexpr const char* kGridSize = "launch__grid_size";
inline constexpr const char* kDeviceName = "device__attribute_display_name";  // text: the GPU's name
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
}  // namespace ncu_metric

// The metric the bytes read are taken from: ncu_metric::kGlobalLoadBytes, or $GPULAB_NCU_GLOBAL_LOAD_METRIC (another
// ncu's name for it, in bytes; added to the list).
std::string global_load_metric();

// Whether the profile counts the bytes of the threads' shared loads and stores on the GPU (kSharedLoadBytes,
// kSharedStoreBytes): yes, unless lab.json's "gpu_profile" says "shared_bytes": false (lab 07, whose tiled products
// execute 2.7 billion shared loads at N = 4096; no technique check of that lab reads them). Where they are left out,
// *why says so in one line for the table; CPU execution mode's access analysis still counts them exactly.
bool shared_bytes_counted(std::string* why = nullptr);
bool shared_bytes_counted(const Json& lab, std::string* why);  // from a given lab.json

// The list `ncu --metrics` is given: every metric above, less the shared bytes where shared_bytes_counted() is false.
const std::vector<std::string>& profile_metrics();
std::vector<std::string> profile_metrics(bool count_shared_bytes);

// One kernel ncu profiled.
struct ProfiledKernel {
    std::string name;                        // as ncu names it (demangled, without parameters where it drops them)
    std::map<std::string, double> metrics;   // metric name -> value in base units; NaN where ncu gave none ("n/a")
    double metric(const std::string& name) const;  // NaN where absent
};

// The kernels one timed launch ran, in launch order.
struct ProfiledLaunch {
    std::string role = "yours";         // "yours"; "reference": the same launch code with the reference's kernels;
                                        // "expert": the lab's expert kernel beside the timed launch (suite, instance)
    std::string suite, instance, call;  // of its GeometryCheck
    std::vector<ProfiledKernel> kernels;
    std::string error;                  // the launch failed in the child (then kernels may be empty)
    // Summed over its kernels; NaN where a kernel lacks the metric.
    double total(const std::string& metric) const;
};

struct GpuProfile {
    bool available = false;
    std::string why;  // when !available: the reason, what to do about it
    std::vector<ProfiledLaunch> launches;
    std::string ncu;        // ncu's path
    std::string device;     // ncu's name of the device, where it gave one
    double seconds = 0;     // the whole child under ncu
    bool shared = false;    // read from the run the other grader of this grading made (gpu_profile.cpp)
    // The reference's and the expert's rows came from an earlier run of the same grader and libraries on this kind of
    // GPU (gpu_profile.cpp, the comparison cache): this run profiled the student's launches only.
    bool comparison_cached = false;
    std::string expert_why;  // why it has no expert rows ("" where it has them): one line for the report
    // The launch registered as (suite, instance), run with `role`'s kernels; null when there is none.
    const ProfiledLaunch* find(const std::string& suite, const std::string& instance,
                               const std::string& role = "yours") const;
    // The first launch of `suite` run with `role`'s kernels, at whatever size: the reference and the expert are
    // profiled at one size per suite (gpu_profile.cpp); null when there is none.
    const ProfiledLaunch* find_in_suite(const std::string& suite, const std::string& role) const;
};

// ---- The expert's launches ---------------------------------------------------------------------------------

// One expert launch for the profile, beside the student's timed launch (suite, instance) it compares with: it runs on
// buffers of that launch's sizes (its GeometryCheck's buffer_bytes, filled the same way), so the figures per output
// byte compare like with like.
struct ExpertLaunch {
    std::string suite, instance;  // the student's timed launch: "Step", "M67108864"
    std::string call;             // "expert::launch_rod_step at M = 67108864"
    // `api`: the lab's expert table (its library's gpulab_lab_api()); `buffers`: the timed launch's.
    std::function<void(const void* api, const std::vector<void*>& buffers)> launch;
};

// The same with the table typed: expert_launch<HeatRodExpertApi>("Step", "M...", "...", [](const HeatRodExpertApi& e,
// const std::vector<void*>& b) { e.launch_step(...); }).
template <typename Api>
ExpertLaunch expert_launch(std::string suite, std::string instance, std::string call,
                           std::function<void(const Api&, const std::vector<void*>&)> run) {
    return {std::move(suite), std::move(instance), std::move(call),
            [run](const void* api, const std::vector<void*>& buffers) { run(*static_cast<const Api*>(api), buffers); }};
}

// Registers the expert launches `make` returns (called once lab.json is readable, like add_geometry_checks). Call from
// a static initializer in the lab's test file:
//     const bool kExpertProfile = gpulab::add_expert_launches(expert_profile_launches);
// Keep them few: one launch per suite the expert serves, at ONE timed size (the roofline's), never one per timed size.
// Each costs the profile a replay of a full-size kernel under ncu (tens of passes), and the expert's figures show
// what a kernel can reach, which one size says as well as three.
bool add_expert_launches(std::function<std::vector<ExpertLaunch>()> make);

// Every expert launch registered (the makers run on the first call).
std::vector<ExpertLaunch> expert_launches();

// What the child runs for them: each as a GeometryCheck with the buffers of its timed launch among `timed`, its
// launch given `api`; one without a timed launch of that suite and instance throws when launched (a grader error,
// recorded as that launch's failure).
std::vector<GeometryCheck> expert_runs(const std::vector<ExpertLaunch>& experts, const std::vector<GeometryCheck>& timed,
                                       const void* api);

// The expert's GPU library named by a build's lab manifest (<build>/gpulab-labs/<lab>.json: "expert": {"gpu":
// {"library": ...}}), or "" with *why where it has none or the file is not built.
std::string expert_library_from_manifest(const Json& manifest, std::string* why);

// Why the profile leaves the timed launches of `suite` out, or "" when it profiles them: lab.json "gpu_profile":
// {"suites": [...]} names the suites profiled where replaying the others under ncu costs too much
// (lab 07's naive products at 4096^3).
std::string profile_leaves_out(const std::string& suite);

// Runs the profile once per process (the first call; later calls return the same).
const GpuProfile& gpu_profile();

// One profiling session per GPU at a time, and no profile under a timed test. A second ncu on a GPU that is being
// profiled fails ("An error was reported by the driver": four gradings side by side on an H200 lost 35 of their 48
// profiles so), and ncu's replays beside a timed test would slow it. So the profile, and every test lab.json marks
// "timing" in a GPU grader (grader_main.cpp), hold an exclusive lock on a file named for the GPUs the process sees
// (/tmp/gpulab-ncu-<CUDA_VISIBLE_DEVICES or all>.lock, or $GPULAB_PROFILE_LOCK): the GPU-mode grader and the CPU
// execution mode one graded beside it, which profiles the GPU build, take turns. Re-entrant within a process
// (Report.GpuProfile is a timed test that profiles).
class GpuProfileLock {
public:
    GpuProfileLock();
    ~GpuProfileLock();
    GpuProfileLock(const GpuProfileLock&) = delete;
    GpuProfileLock& operator=(const GpuProfileLock&) = delete;
};

// ---- A check a technique test calls ---------------------------------------------------------------------

struct GpuCounterAgreement {
    std::string kernel = "your kernel";  // "your tiled kernel": the subject of the message
    std::string element = "input";       // "reads its input 7.0 times per cell"
    std::string per = "cell";
    double outputs = 0;                  // output elements the timed launch computes (its cells)
    double element_bytes = 4;            // bytes per element read (a float: 4)
    // The GPU's figure may exceed CPU execution mode's by this much before the check fails:
    //   gpu <= cpu * (1 + relative) + absolute.
    // Why one-sided, and why this wide (see gpu_profile.cpp): both count bytes the threads read, but CPU execution
    // mode counts a sample of blocks in which edge and corner blocks are over-represented (a tiled stencil's edge
    // block reads a few % less or more than an interior one); reading less on the GPU is no cheat; a cheat reads
    // several times more.
    double relative = 0.25, absolute = 0.25;
    // Where given (not NaN): CPU execution mode's shared-memory elements read per output of the same launch
    // (SharedCount::bytes_read over element_bytes, per output). The GPU's (smsp__sass_data_bytes_mem_shared_op_ld.sum
    // over element_bytes, per output) must then be at least cpu / (1 + relative) - absolute: a kernel that computes
    // from its tile where it is counted and from global memory on the GPU reads far less from shared memory there.
    double cpu_shared_elements_read_per_output = std::numeric_limits<double>::quiet_NaN();
    // Where counters cannot be read: GTEST_SKIP with the reason (a test of its own), or only record it (a check
    // inside a test whose other verdict must stand: skipping would void it). After a skip the caller returns
    // (the verdict's `ran` is false).
    bool skip_when_unavailable = true;
};

struct GpuCounterVerdict {
    bool ran = false;       // counters read and compared
    bool agree = true;
    double gpu = 0, cpu = 0;  // elements read per output from global memory
    double gpu_shared = std::numeric_limits<double>::quiet_NaN();  // ... from shared memory, where compared
    std::string why;        // not run: why; disagreement: the message
};

// Compares the GPU's global bytes loaded (over element_bytes) per output element of the timed launch (suite, instance) with CPU execution
// mode's count of the same launch, `cpu_elements_read_per_output` (its bytes read from every buffer, over
// element_bytes, per output). Fails the current test when the GPU reads more than the tolerance allows:
//   "your tiled kernel reads its input 7.0 times per cell on the GPU and 1.3 times in CPU execution mode: it must
//    do the same work in both".
// Records properties gpu_elements_read_per_output / gpu_counters.
GpuCounterVerdict check_gpu_counters_agree(const std::string& suite, const std::string& instance,
                                           double cpu_elements_read_per_output, const GpuCounterAgreement& how);

// ---- What it is made of (also for the grader's own tests) ----------------------------------------------------

// The same check against a given profile.
GpuCounterVerdict check_gpu_counters_agree(const GpuProfile& profile, const std::string& suite,
                                           const std::string& instance, double cpu_elements_read_per_output,
                                           const GpuCounterAgreement& how);

// ncu's path: $GPULAB_NCU, else `ncu` on PATH, else $CUDA_HOME/bin, else /usr/local/cuda/bin; "" when none.
std::string find_ncu(std::string* looked = nullptr);

// One row of ncu's CSV (--csv --page raw --print-units base): the kernel's name and its metrics.
struct NcuRow {
    std::string id, kernel;
    std::map<std::string, double> metrics;  // NaN for "n/a"
    std::map<std::string, std::string> text;  // every column as printed
};
// The rows of ncu's output (lines before the header and ncu's ==PROF== / ==ERROR== lines are skipped; the units row
// too). Numbers may carry thousands separators ("1,048,576"): they are read without them.
std::vector<NcuRow> parse_ncu_csv(const std::string& output);

// The NVTX range name's prefix, and the launch number of a row's range (-1: a kernel in no launch's range).
inline constexpr const char* kProfileRangePrefix = "gpulab launch ";
int range_launch_index(const NcuRow& row);

// The child's account of its launches (its "[gpulab-profile] launch <i>\t<role>\t<suite>\t<instance>\t<call>" and
// "failed <i>\t<what>" lines), in index order; *expert_why: why it ran no expert launch, where it said so.
std::vector<ProfiledLaunch> launches_of_child_log(const std::string& child_out, std::string* expert_why);

// Groups rows into launches: each row inside the range of launch i is launch i's.
// `names` gives each launch's (suite, instance, call) in index order.
std::vector<ProfiledLaunch> attribute_rows(const std::vector<NcuRow>& rows,
                                           const std::vector<ProfiledLaunch>& names);

// The reference's and the expert's launches of a run's output (ncu's CSV, the child's log), for the comparison cache
// (gpu_profile.cpp): the student's launches left out. *expert_why where given.
std::vector<ProfiledLaunch> comparison_launches(const std::string& ncu_out, const std::string& child_out,
                                               std::string* expert_why);

// Why ncu's output says the counters cannot be read, or "" when it does not: ERR_NVGPUCTRPERM (with the
// administrator setting that allows them), an unsupported device, another ==ERROR==.
std::string ncu_failure_reason(const std::string& output);

// The child: registered as its only test ("GpuProfileWorkload.Run") in a process started by the profile; nothing
// elsewhere. Called by the grader's main() after register_geometry_checks().
void register_gpu_profile_workload();

}  // namespace gpulab

// At the top of a test that compares with the GPU's counters: where they cannot be read (no GPU, no ncu,
// ERR_NVGPUCTRPERM), the test is "not run" with the reason before it counts anything, and holds back no test that
// requires it (skip_holds_back).
#define GPULAB_REQUIRE_GPU_COUNTERS()                                                        \
    do {                                                                                     \
        const ::gpulab::GpuProfile& gpulab_profile_ = ::gpulab::gpu_profile();               \
        if (!gpulab_profile_.available) {                                                    \
            ::testing::Test::RecordProperty("skip_holds_back", "no");                        \
            GTEST_SKIP() << "the GPU's counters were not read: " << gpulab_profile_.why;     \
        }                                                                                    \
    } while (0)
