// What the GPU's counters say about each timed kernel, in the figures that explain speed (issue 35, items 1-2):
// achieved against theoretical occupancy and which limit binds, global sectors per request (coalescing), shared
// bank conflicts per request, DRAM bytes per output byte against the compulsory ones, global and shared bytes read
// per output byte, branch uniformity, local memory (spills). Read from the lab's one `ncu` run (gpu_profile.h);
// the diagnoses (access_diagnosis.h) are computed from these figures, never guessed from the code.
//
// Report.GpuProfile (0 points, "run_in": "gpu", registered from lab.json like Report.AccessAnalysis) prints one
// table per lab: each timed launch of the student's, then the reference's kernels through the same launch code, then
// the expert's kernel where the lab registered one beside that launch (gpu_profile.h, add_expert_launches: one timed
// size per suite) and the build has the expert; where it has none, one line says why ("expert: not profiled: ...").
// It records the table (report_table, which the class feedback and Gradescope render), gpu_profile.json (rows by
// role, "expert_why"), expert_profile (the expert's part in one line) in the test's properties (summary.json), and
// draws the three kernels side by side, figure by figure (gpulab_plot.py gpu-profile). A speed test that fails names
// the measured causes of its timed launch first (speed_diagnosis below).
#pragma once

#include "gpulab/access_diagnosis.h"
#include "gpulab/counter_agreement.h"
#include "gpulab/launch_geometry.h"
#include "gpulab/launch_recorder.h"

#include <string>
#include <vector>

namespace gpulab {

struct GpuProfile;
struct AccessFigures;

struct GpuKernelFigures {
    std::string role = "yours";  // "yours", "reference", "expert"
    std::string suite, instance, call, kernels;
    bool available = false;
    std::string why;  // not available: why
    double ms = 0;    // the profiled run's kernel time (under the profiler: not a speed figure)
    unsigned threads_per_block = 0;
    double shared_bytes_per_block = 0;
    int registers = 0;
    double achieved_occupancy = 0, theoretical_occupancy = 0;  // 0..1
    std::string limiter;  // which limit binds the theoretical occupancy: "registers", "shared memory", ...
    double load_sectors_per_request = 0, store_sectors_per_request = 0;
    double load_sector_use = 0, store_sector_use = 0;  // bytes asked for over 32 x sectors touched
    double shared_load_conflicts_per_request = 0, shared_store_conflicts_per_request = 0;
    double global_bytes_read_per_output_byte = 0;  // the threads' global loads over their global stores
    double shared_bytes_read_per_output_byte = 0;  // NaN where the GPU's shared bytes were not counted
    double dram_bytes_per_output_byte = 0;         // DRAM read + write over the bytes stored
    double compulsory_dram_bytes_per_output_byte = 0;  // every buffer of the launch moved once
    double branch_uniform = 1;                     // 0..1: branches whose threads all went one way
    double lanes_per_instruction = 32;             // working lanes per warp instruction (NaN: not counted)
    // The memory requests' active lanes, where the drawn sample's instructions were counted (else < 0).
    double active_lanes_per_request = -1;
    double local_bytes_per_thread = 0;             // local loads + stores per thread (spills, local arrays)
    double barrier_stall_share = 0;                // 0..1: active warp cycles spent waiting at a barrier
    std::vector<Diagnosis> diagnoses;  // each with the lines that carry it, where the GPU counted its instructions
    std::string cause_lines_why;       // why a cause that is one line's names none ("" where each does)
};

// For a speed test's failure message: the causes the GPU's counters measured for the timed launch (suite, instance),
// the largest first, with their figures; else what the recorded launches alone show (launch_facts). Never a guess:
// "measured on this GPU: achieved occupancy 26% of the 100% your 128-thread blocks allow: ...".
std::string speed_diagnosis(const std::string& suite, const std::string& instance,
                            const std::vector<RecordedLaunch>& launches);

// The same from a given profile (the grader's own tests). `role`: "yours", "reference" or "expert".
GpuKernelFigures figures_of(const GpuProfile& profile, const std::string& suite, const std::string& instance,
                            const std::string& role);
std::string speed_diagnosis(const GpuProfile& profile, const std::string& suite, const std::string& instance,
                            const std::vector<RecordedLaunch>& launches);

// CPU execution mode's exact figures (Report.AccessAnalysis's "access_figures", handed over by gpulab-grade: rows
// keyed "<suite> <instance>", counter_agreement.h) beside the drawn timed samples' figures of the same launches (issue
// 35, item 3); "" where there are none to put beside. Appends to *disagreeing one line per launch whose figures
// disagree beyond the stated slack, naming it and both figures of each measure; sets (*gpu_figures)["<suite>
// <instance>"] to the GPU's figures of each launch, for recording them (grader/tools/record_gpu_counters.py).
std::string gpu_beside_cpu_table(const GpuProfile& profile, const nlohmann::json& cpu_rows,
                                 std::vector<std::string>* disagreeing, nlohmann::json* gpu_figures = nullptr);
// The figures the agreement compares, of the GPU's row (a CPU-mode row's: access_analysis.h).
CounterFigures counter_figures(const GpuKernelFigures& g);

// Whether a drawn sample with these figures has its memory instructions counted one by one (instruction_counters.h):
// where a cause it shows is one that lines carry, or its warps ran with few working lanes, which only the memory
// instructions' own lanes can tell from a reference's halo threads waiting (divergent-warps).
bool instructions_worth_counting(const GpuKernelFigures& f);

// The table Report.GpuProfile prints; `expert_why` (GpuProfile::expert_why), where given, is its one line on why no
// expert kernel is beside the others.
std::string gpu_profile_table(const std::vector<GpuKernelFigures>& rows, const std::string& device,
                              const std::string& expert_why = "");

// The table's rows: for each timed launch, the student's kernels, then the reference's and the expert's where the
// profile ran them beside it.
std::vector<GpuKernelFigures> gpu_profile_rows(const GpuProfile& profile, const std::vector<GeometryCheck>& timed);

// gpu_profile.json (what the plot draws and summary.json's gpu_profile_json holds): "device", "lab", "expert_why" and
// one object per row, by role.
std::string gpu_profile_json(const std::vector<GpuKernelFigures>& rows, const std::string& device,
                             const std::string& expert_why);

// Called by the grader's main() after register_geometry_checks(): registers Report.GpuProfile where lab.json lists it.
void register_gpu_profile_report();

}  // namespace gpulab
