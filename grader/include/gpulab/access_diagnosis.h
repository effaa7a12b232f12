// Why a kernel is slow, said from what was measured (CPU execution mode's exact access analysis and the launch's
// own configuration), never guessed from its code. Each cause has a name a check can require (slow/ variants:
// grader/labs/<lab>/slow/*.json "causes") and a sentence a student reads, with its number.
//
// Occupancy is the CUDA occupancy calculation for the course's GPUs (compute capability 9.0, H100 and H200:
// 2048 threads, 64 warps, 32 blocks and 228 KiB of shared memory per SM, 1 KiB of it reserved per block, 64 Ki
// registers): what the block shape and shared memory allow at most. What a GPU then achieves (blocks that end
// before the SM can start new ones) only its counters can say (the GPU profile, issue 35).
#pragma once

#include <string>
#include <vector>

namespace gpulab {

struct RecordedLaunch;

struct Occupancy {
    double theoretical = 0;  // resident warps / 64, at most
    int blocks_per_sm = 0;
    std::string limiter;     // "threads", "blocks per SM", "shared memory", "registers"
};
// registers: per thread, 0 where unknown (CPU execution mode).
Occupancy theoretical_occupancy(unsigned threads_per_block, std::size_t shared_bytes_per_block, int registers = 0);

struct MemoryFigures {
    unsigned threads_per_block = 0;
    std::size_t shared_bytes = 0;
    int registers = 0;
    double load_sector_use = 1, store_sector_use = 1;   // 0..1 (1: nothing loaded or stored)
    // Sectors per lane of a warp request: 0.125 for 32 neighbouring floats, 0.09 for 32 neighbouring bytes of RGB
    // pixels, 1 when every lane has a sector of its own (lanes 32 bytes or more apart).
    double load_sectors_per_lane = 0, store_sectors_per_lane = 0;
    double shared_load_conflicts_per_request = 0, shared_store_conflicts_per_request = 0;
    std::size_t local_bytes = 0;                         // per thread, GPU builds only
    double achieved_occupancy = -1;                      // 0..1 from the GPU's counters; < 0: not measured
    // The share of warp requests (global and shared) issued by fewer lanes than their warp has threads, and the active
    // lanes per request (32 at most); < 0: not counted. Requests with idle lanes, not the GPU's branch efficiency (a
    // branch without a memory access inside is invisible here). CPU execution mode counts them exactly; a GPU from its
    // memory instructions' lanes where it counted them (gpu_profile_report.cpp: the share is an upper bound there).
    double idle_lane_request_share = -1, active_lanes_per_request = -1;
    // The launch's blocks and the GPU's SMs (CPU execution mode answers the lab's GPU's count); 0: not known.
    unsigned long long grid_blocks = 0;
    int sm_count = 0;
    // The kernels one call of the timed launch ran (every one of them, whatever its grid); 0: not known.
    std::size_t kernel_launches = 0;
    // On a GPU: the share of active warp cycles spent waiting at a barrier for the block's other warps; < 0: not
    // measured (CPU execution mode runs a block's threads one after another and cannot time a wait).
    double barrier_stall_share = -1;
};

// A source line that carries a cause: "gaussian_blur.cu:57  v += w * tile[tx][ty + 1];" and its own figure, "31.0
// extra turns per shared-memory request (94% of the kernel's bank conflicts)".
struct CauseLine {
    std::string quoted, figure;
    std::string text() const { return quoted + ": " + figure; }
};

struct Diagnosis {
    std::string cause;  // "uncoalesced-loads", "uncoalesced-stores", "bank-conflicts", "small-blocks",
                        // "shared-memory-limits-occupancy", "register-spills", "blocks-end-before-they-start",
                        // "divergent-warps", "grid-smaller-than-gpu", "launch-overhead", "barrier-stalls"
    std::string text;   // the sentence, with the measured figure
    // The lines of the student's source that carry it, each with its own figure (cause_lines.h). Empty where the
    // cause is not one line's (block size, occupancy, a grid smaller than the GPU) or no line is known.
    std::vector<CauseLine> lines;
};

// The causes the figures show, the largest first; empty when none.
std::vector<Diagnosis> diagnose(const MemoryFigures& f);

// What a recorded launch alone shows (its block, shared memory, and on a GPU its registers and local memory),
// for a speed test's message: the causes found, else the occupancy its configuration allows. Never a guess about
// the code: "block 128x1x1, 0 B shared, 16 regs: up to 100% occupancy (limit: threads)".
std::string launch_facts(const RecordedLaunch& launch);

// What one call's launches show together: the first few's launch_facts, and launch-overhead where there are many.
std::string launches_facts(const std::vector<RecordedLaunch>& launches);

}  // namespace gpulab
