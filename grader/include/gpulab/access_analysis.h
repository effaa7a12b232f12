// CPU execution mode's exact access analysis of the launches a lab times: what a profiler's memory figures
// would say about them, computed from every address every CUDA thread of a sample of blocks touched (CPU
// execution mode knows them all), with no timing. The figures explain speed without a GPU:
//  - global bytes read per output byte written (reuse: a tile reads each input about once);
//  - sector use of global loads and stores: the bytes a warp request needed over the 32-byte sectors it touched
//    (100%: coalesced; 12.5%: each lane's float in its own sector);
//  - shared memory read per output byte, and bank conflicts per shared request (extra wavefronts);
//  - requests with idle lanes: warp requests issued by fewer lanes than the warp has threads (divergence);
//  - the occupancy its block shape, shared memory and registers allow, and the causes these figures show
//    (access_diagnosis.h), recorded as the property "causes".
// Registers per thread, local memory per thread (spills, arrays indexed at run time) and static shared memory come
// from the GPU build of the same solution (kernel_resources.h: cuobjdump, else the library's fatbin); where there is
// none, or the launch matches no kernel of it, the table says so and the figures leave them out.
// Warps are formed as a GPU forms them (32 consecutive threads, x fastest); a request is one instruction of
// one warp, the n-th time each lane runs it.
//
// Report.AccessAnalysis (0 points, "run_in": "cpu") shows the table for every registered timed launch;
// lab.json "access_analysis" (optional) sets the sample: {"blocks": 8, "page_every": [1, 1],
// "shared_faults_per_block": 20000, "suites": ["TiledStep"], "instances": ["N4096"]}.
#pragma once

#include "gpulab/counter_agreement.h"

#include "gpulab/access_diagnosis.h"
#include "gpulab/timed_launch_count.h"

#include <string>
#include <vector>

namespace gpulab {

// One timed launch's figures. A field added here is added to access_in_children.cpp's list too: a forked child hands its
// row back field by field, and a field left off that list would come back empty.
struct AccessFigures {
    std::string suite, instance, call;
    bool available = false;
    std::string why;
    double input_bytes_per_output_byte = 0;
    bool pages_sampled = false;  // counted on a sample of the pages: the bytes per byte are an estimate
    double load_sector_use = 0, store_sector_use = 0;  // 0..1; NaN where no warp request was counted whole
    double load_sectors_per_request = 0, store_sectors_per_request = 0;
    double load_sectors_per_lane = 0, store_sectors_per_lane = 0;
    double shared_bytes_read_per_output_byte = 0;  // NaN where a block's shared accesses were counted in part
    double shared_load_conflicts_per_request = 0, shared_store_conflicts_per_request = 0;
    bool shared_capped = false;  // some blocks' shared accesses were counted only in part
    // Requests with idle lanes: the share of warp requests (global and shared) issued by fewer lanes than their warp
    // has threads (a branch on threadIdx that splits warps, or lanes that returned; a short last warp is not idle),
    // and the active lanes per request, over the whole grid. Only requests whose lanes are all known are judged:
    // global ones of buffers counted on every page, shared ones of blocks counted whole (idle_lanes_from says
    // which). Not the GPU's branch efficiency: a branch with no memory access inside is invisible here.
    bool idle_lanes_known = false;
    double idle_lane_request_share = 0, active_lanes_per_request = 0;
    std::string idle_lanes_from;  // "global and shared requests", "global requests", "shared requests"
    unsigned threads_per_block = 0;  // of the launch with the most blocks
    std::size_t shared_bytes = 0;
    std::string kernel;              // the launched kernel, as its launch site names it
    // From the GPU build (kernel_resources.h): known only where resources_from is set; else resources_why says why.
    int registers = 0;
    std::size_t local_bytes = 0, gpu_static_shared = 0;
    std::string resources_from, resources_why;
    Occupancy occupancy;             // what that block shape, shared memory and registers allow at most (cc 9.0)
    std::vector<Diagnosis> diagnoses;  // each with the source lines that carry it, where they are known
    std::string cause_lines_why;       // why a cause that is one line's names none ("" where each does)
    unsigned long long blocks = 0, grid_blocks = 0;
    unsigned long long sector_blocks = 0;  // blocks of the count the global figures come from (analyze_access)
    double lines_seconds = 0;  // putting the causes down to lines (issue 45: at most 1 s a lab)
    // Where the count stopped inside a block (at the analysis's ceiling of accesses: a block whose threads each walk
    // thousands of outputs), why; the figures are of what it counted, and that block's requests are left out.
    std::string counted_in_part;
    // Blocks that ended at a barrier after `block_accesses` global accesses (sampled inside a block, BlockSample):
    // of the count the global figures come from, and of the first.
    unsigned long long blocks_cut = 0, block_accesses = 0;
};

// Where shared memory is counted (lab.json "access_analysis"). Where the first count does not reach the grid's
// interior, the second count's shared figures replace the first's (bank conflicts over the whole grid), and a first
// count whose blocks spend their shared budget shows no shared bytes per output byte either ("part"): such a lab can
// leave shared memory to the second count alone (first_count_shared false; the first counts it after all where no
// second count runs), and give the second count's one block per class a budget of its own.
struct AccessCountPlan {
    bool first_count_shared = true;                     // "first_count_shared"
    unsigned long long second_shared_faults_per_block = 0;  // "second_shared_faults_per_block"; 0: the first's
    // "second_shared_least_class_share": the second count counts shared memory in one block of each class of the grid
    // holding at least this share of it (0.01: a 3D grid's interior and faces; 0.5: its interior alone).
    double second_shared_least_class_share = 0.01;
    // "block_accesses": the most global accesses a sampled block counts before it ends at its next barrier (0: the
    // count's ceiling shared among its blocks, access_analysis.cpp).
    unsigned long long block_accesses = 0;
};

// The figures of one timed launch, counted as `options` and `plan` say.
AccessFigures analyze_access(const GeometryCheck& launch, TimedCountOptions options,
                             const AccessCountPlan& plan = {});

// The table the report prints, headed "CPU execution mode: exact access analysis, no timing".
// The figures the agreement with the GPU's counters compares (counter_agreement.h), of a CPU-mode row.
CounterFigures counter_figures(const AccessFigures& f);

std::string access_table(const std::vector<AccessFigures>& rows);

// The body of Report.AccessAnalysis: every timed launch of the lab (or of lab.json's suites), counted, shown,
// and recorded as properties (summary.json).
void report_access_analysis();

// Called by the grader's main() after register_geometry_checks(): registers Report.AccessAnalysis where the lab's
// lab.json lists it (so a lab opts in with one line of config, and no test file repeats it).
void register_access_report();

}  // namespace gpulab
