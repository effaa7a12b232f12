#include "gpulab/access_diagnosis.h"

#include "gpulab/format.h"
#include "gpulab/launch_recorder.h"

#include <algorithm>

namespace gpulab {
namespace {

// Compute capability 9.0 (H100, H200).
constexpr int kThreadsPerSm = 2048, kWarpsPerSm = 64, kBlocksPerSm = 32, kRegistersPerSm = 65536;
constexpr std::size_t kSharedPerSm = 228 * 1024, kReservedPerBlock = 1024;

// A coalesced warp uses every byte of the sectors it touches; below half, most of what moves is waste. That alone
// is no cause: 32 lanes reading one byte of neighbouring RGB pixels use a third of their sectors, and the next two
// channels' requests find the same sectors in the L1 cache. The cause is lanes that share no sector: half a sector
// per lane or more (32 neighbouring floats take 0.125).
constexpr double kPoorSectorUse = 0.5;
constexpr double kSectorsPerLaneApart = 0.5;
// One extra wavefront per request doubles the time a shared access takes.
constexpr double kConflictsWorthNaming = 1.0;
// Warps split by branches: named only where a warp's memory requests run at about half its lanes or fewer. More
// than a quarter of the requests with idle lanes (a short last warp of a block of 48 threads is never idle: it lowers
// the lanes per request but not this share), and fewer than 18 active lanes of 32 on average: a warp split in two by
// threadIdx.x parity issues every request with 16. A stencil's boundary warps, whose edge threads skip the update, are
// few next to the interior (a 512-wide row of 32-lane warps: 2 of its 16 warps hold an edge thread, each idling 1 lane
// of 32), and the input-tile design lab 04's reference teaches (an 8x8x8 block loads the tile; its 6x6x6 inner threads
// compute while the halo threads wait) keeps 20 of 32 lanes active, 84% of its requests with idle lanes: the
// technique's accepted cost, not a bug. A threshold of 24 lanes (a quarter idle) would name that reference.
constexpr double kIdleLaneShareWorthNaming = 0.25;
constexpr double kActiveLanesBelow = 18;
// Achieved occupancy below 60% of the theoretical: the H200's 128-thread lab 01 kernel measured 26% of 100%.
constexpr double kAchievedShareWorthNaming = 0.6;
// A grid with fewer blocks than half of what the GPU holds at once leaves SMs (or most of their warp slots) without
// work for the whole launch: a grid-stride loop over a fixed 96 blocks on 132 SMs. The course's grids are far
// larger (lab 01's 2^26 cells: 262144 blocks; a grid-stride loop capped at 4096 blocks of 256 threads fills the
// 1056 an H100 holds at once).
constexpr double kResidentShareWorthNaming = 0.5;
// One call that launches this many kernels or more: a kernel per plane of a 3D grid (447 at 449^3) or per row. Every
// launch costs the GPU a few microseconds before its first block runs, and its grid drains (its last blocks run with
// SMs idle) before the next one fills it. The references launch one or two kernels a call; the profiler reads at most
// 16 (profile_limits.h).
constexpr std::size_t kManyLaunches = 32;
// Warps waiting at a barrier for more than this share of their active cycles. Nsight Compute advises at 30%
// (CPIStallBarrier), but the course's own references wait longer: on an H100 (2026-12-07) lab 04's tiled kernel
// 24-26%, lab 05's coarsened 34-36%, lab 06's register-tiled 44-51% (a plane's barrier twice per plane, the block's
// 32 warps in step), the expert 15%. The cause is named above what a kernel doing the taught work reaches.
constexpr double kBarrierStallShareWorthNaming = 0.6;
// What starting a kernel costs on an H100/H200 with the launches queued back to back, for the sentence's estimate.
constexpr double kMicrosecondsPerLaunch = 3;


}  // namespace

Occupancy theoretical_occupancy(unsigned threads_per_block, std::size_t shared_bytes, int registers) {
    Occupancy o;
    if (threads_per_block == 0) return o;
    const int warps = int((threads_per_block + 31) / 32);
    struct Limit {
        int blocks;
        const char* name;
    };
    std::vector<Limit> limits = {{kWarpsPerSm / warps, "threads"}, {kBlocksPerSm, "blocks per SM"}};
    if (shared_bytes > 0) limits.push_back({int(kSharedPerSm / (shared_bytes + kReservedPerBlock)), "shared memory"});
    if (registers > 0) {
        const int per_warp = (registers * 32 + 255) / 256 * 256;  // allocated per warp in units of 256
        limits.push_back({kRegistersPerSm / (per_warp * warps), "registers"});
    }
    const Limit* tightest = &limits[0];
    for (const Limit& l : limits)
        if (l.blocks < tightest->blocks) tightest = &l;
    o.blocks_per_sm = std::max(0, tightest->blocks);
    o.limiter = tightest->name;
    o.theoretical = std::min(1.0, double(o.blocks_per_sm * warps) / kWarpsPerSm);
    (void)kThreadsPerSm;
    return o;
}

std::vector<Diagnosis> diagnose(const MemoryFigures& f) {
    std::vector<Diagnosis> out;
    if (f.kernel_launches >= kManyLaunches)
        out.push_back({"launch-overhead",
                       "one call of your launch function starts " + std::to_string(f.kernel_launches) +
                           " kernels: each launch costs the GPU a few microseconds before its first block runs, and "
                           "each grid drains (its last blocks run beside idle SMs) before the next one starts, about " +
                           fixed(f.kernel_launches * kMicrosecondsPerLaunch / 1000, 2) +
                           " ms a call whatever the kernels do; launch one grid that covers the whole problem (a "
                           "3D grid, or blockIdx.z for the planes) instead of one launch per plane or row"});
    if (f.load_sector_use < kPoorSectorUse && f.load_sectors_per_lane >= kSectorsPerLaneApart)
        out.push_back({"uncoalesced-loads",
                       "your global loads use " + pct(f.load_sector_use) +
                           " of the bytes of the 32-byte sectors they fetch, " + fixed(32 * f.load_sectors_per_lane, 0) +
                           " sectors for a warp's 32 threads (32 neighbouring floats take 4): neighbouring threads "
                           "(threadIdx.x) should read neighbouring addresses, so that x, the index that varies fastest "
                           "in memory, follows threadIdx.x"});
    if (f.store_sector_use < kPoorSectorUse && f.store_sectors_per_lane >= kSectorsPerLaneApart)
        out.push_back({"uncoalesced-stores",
                       "your global stores use " + pct(f.store_sector_use) +
                           " of the bytes of the 32-byte sectors they write, " + fixed(32 * f.store_sectors_per_lane, 0) +
                           " sectors for a warp's 32 threads: neighbouring threads (threadIdx.x) should write "
                           "neighbouring addresses"});
    const double conflicts = std::max(f.shared_load_conflicts_per_request, f.shared_store_conflicts_per_request);
    if (conflicts >= kConflictsWorthNaming)
        out.push_back({"bank-conflicts",
                       "each shared-memory request of a warp waits for " + fixed(conflicts, 1) +
                           " extra turns (bank conflicts: lanes asking one of the 32 banks for different words): "
                           "a warp reading a column of a [32][32] float tile hits one bank 32 times; pad each row to "
                           "33 values, or read along rows"});
    if (f.idle_lane_request_share > kIdleLaneShareWorthNaming && f.active_lanes_per_request >= 0 &&
        f.active_lanes_per_request < kActiveLanesBelow)
        out.push_back({"divergent-warps",
                       pct(f.idle_lane_request_share) + " of your warps' memory requests are issued with idle lanes, " +
                           fixed(f.active_lanes_per_request, 1) +
                           " of 32 lanes active on average: a branch on threadIdx splits each warp, and a warp runs "
                           "both sides one after the other with the other side's lanes waiting; let neighbouring "
                           "threads take the same path (branch on the warp, or on the data, not on threadIdx.x % 2)"});
    const Occupancy o = theoretical_occupancy(f.threads_per_block, f.shared_bytes, f.registers);
    if (o.blocks_per_sm == 0 && f.threads_per_block > 0)
        out.push_back({"shared-memory-limits-occupancy",
                       "a block asks for " + std::to_string(f.shared_bytes / 1024) +
                           " KiB of shared memory: more than an SM has (227 KiB), so the launch cannot run"});
    else if (o.limiter == "shared memory" && o.blocks_per_sm < 2)
        out.push_back({"shared-memory-limits-occupancy",
                       "each block's " + std::to_string(f.shared_bytes / 1024) +
                           " KiB of shared memory leaves room for " + std::to_string(o.blocks_per_sm) +
                           " block per SM (" + pct(o.theoretical) +
                           " of its warps at most, and nothing runs while that block waits at a barrier): a tile of "
                           "at most 113 KiB lets two blocks share an SM"});
    else if (o.limiter == "blocks per SM" && o.theoretical <= 0.5)
        out.push_back({"small-blocks",
                       "blocks of " + std::to_string(f.threads_per_block) + " threads: an SM holds at most 32 blocks, "
                           "so at most " + std::to_string(32 * f.threads_per_block) + " of its 2048 threads (" +
                           pct(o.theoretical) + " occupancy) can run; use 128 to 256 threads a block"});
    else if (o.limiter == "registers" && o.theoretical <= 0.5)
        out.push_back({"register-limits-occupancy",
                       std::to_string(f.registers) + " registers per thread leave room for " + pct(o.theoretical) +
                           " of an SM's warps"});
    // Achieved far below what the configuration allows, with nothing else limiting it: the SM's warps sit idle
    // between blocks, because each block finishes before the SM can start the next one.
    if (f.achieved_occupancy >= 0 && o.theoretical > 0 && f.achieved_occupancy < kAchievedShareWorthNaming * o.theoretical)
        out.push_back({"blocks-end-before-they-start",
                       "achieved occupancy " + pct(f.achieved_occupancy) + " of the " + pct(o.theoretical) + " your " +
                           std::to_string(f.threads_per_block) + "-thread blocks allow: each block finishes before the "
                           "SM can start the next; give each thread more cells, or use 256-thread blocks"});
    const double resident = double(f.sm_count) * o.blocks_per_sm;
    if (f.grid_blocks > 0 && resident > 0 && double(f.grid_blocks) < kResidentShareWorthNaming * resident)
        out.push_back({"grid-smaller-than-gpu",
                       "your launch runs " + std::to_string(f.grid_blocks) + " blocks, where this GPU's " +
                           std::to_string(f.sm_count) + " SMs hold " + fixed(resident, 0) + " of them at once (" +
                           std::to_string(o.blocks_per_sm) + " each): " + pct(double(f.grid_blocks) / resident) +
                           " of the GPU has work" +
                           (f.grid_blocks < (unsigned long long)f.sm_count ? ", and " + std::to_string(f.sm_count - int(f.grid_blocks)) +
                                                                                 " SMs none at all" : "") +
                           "; launch one block per tile of the output (the grid grows with the problem), or at least " +
                           fixed(resident, 0) + " blocks for a grid-stride loop"});
    if (f.barrier_stall_share > kBarrierStallShareWorthNaming)
        out.push_back({"barrier-stalls",
                       "your warps spend " + pct(f.barrier_stall_share) +
                           " of their active cycles waiting at a __syncthreads() for the rest of their block: the work "
                           "before the barrier is uneven (a few threads load what all of them need) or barriers come "
                           "too often; share the loads among all the block's threads, and give each warp about the "
                           "same work between two barriers"});
    if (f.local_bytes > 0)
        out.push_back({"register-spills",
                       std::to_string(f.local_bytes) + " bytes of local memory per thread: the compiler spilled "
                           "registers (or an array indexed at run time) to slow off-chip memory"});
    return out;
}

std::string launch_facts(const RecordedLaunch& launch) {
    MemoryFigures f;
    f.threads_per_block = launch.block.x * launch.block.y * launch.block.z;
    f.shared_bytes = launch.shared_bytes();
    f.registers = launch.registers;
    f.local_bytes = launch.local_bytes;
    const Occupancy o = theoretical_occupancy(f.threads_per_block, f.shared_bytes, f.registers);
    std::string out = launch.describe() + ": up to " + pct(o.theoretical) + " occupancy (limit: " + o.limiter + ")";
    for (const Diagnosis& d : diagnose(f)) out += "; " + d.text;
    return out;
}

std::string launches_facts(const std::vector<RecordedLaunch>& launches) {
    std::string out = launches_in_words(launches, launch_facts);
    MemoryFigures f;
    f.kernel_launches = launches.size();
    for (const Diagnosis& d : diagnose(f)) out += "; " + d.text + " [" + d.cause + "]";
    return out;
}

}  // namespace gpulab
