// The technique, counted on the launch that is timed. A technique test that counts reads on small grids only can
// be passed by a launch function that uses the technique where it is counted and something else at the timed
// size (a mode argument, a switch on the problem size, another kernel). So each technique test also runs the
// timed launch itself (the lab's registered timed launches: gpulab/launch_geometry.h, the same call, sizes and
// arguments the speed tests time) in CPU execution mode: its real grid, block and arguments, a sample of its
// blocks (corners, edges, random interior blocks drawn from the run's seed), on buffers of the timed size that
// cost nothing where the sample does not touch them (LazyDeviceBuffer), and counts what each buffer gave and got.
// Those buffers hold values drawn as the speed test draws the timed samples' (GeometryCheck::draws: the same type
// and range, fresh values from the run's seed), never one value everywhere: a kernel that tests its input for a
// flat field would otherwise do one thing where it is counted and another where it is timed.
//
// CPU execution mode only (read_counter.h); the tests using it are "run_in": "cpu".
#pragma once

#include "gpulab/launch_geometry.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/read_counter.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpulab {

// The ceiling of a sampled count of a timed launch (TimedCountOptions::max_accesses), about 12-40 us an access on a
// 2-core machine: the references' counts reach 119,474 at most; a grid-stride loop over a small grid, whose blocks
// each walk thousands of cells, stops here instead of at CPU execution mode's own 750,000 (minutes a launch).
inline constexpr unsigned long long kMaxTimedCountAccesses = 200000;

struct TimedCountOptions {
    unsigned long long blocks = 32;  // blocks of each launch that run (all when the grid has no more)
    unsigned long long interior_run = 1;  // interior blocks in runs of this many along x (BlockSample)
    unsigned long long block_accesses = 0;  // a block ends at a barrier past this many global accesses (BlockSample)
    // Per buffer of the launch (missing: 1): count one page in N. For kernels whose blocks walk thousands of
    // pages each (coarsened along z, a long K): ratios of such buffers' counts keep their expectation.
    std::vector<unsigned> page_every;
    SharedCounting shared;  // count shared memory and its bank conflicts too (count.shared)
    // Instead of one whole range per buffer: the ranges to count, made from the launch's buffers (in its buffer
    // order; page_seed 0 takes the run's seed). count.ranges and page_every then follow these ranges, one each.
    // For a count that needs exact parts of buffers (a window of K in every row of a matrix) rather than pages.
    std::function<std::vector<CountedRange>(const std::vector<void*>& buffers)> ranges;
    // Stop the count after this many accesses (0: CPU execution mode's own ceiling); count.stopped_early says so.
    unsigned long long max_accesses = 0;
};

// A buffer's counts over the whole launch, estimated from the sampled blocks: each block stands for its class
// of the grid (per dimension: the first block, the inner blocks, the last block; so corners, edges, faces and the
// interior), weighted by that class's blocks over its sampled blocks, and scaled by page_every. A class of which
// no block ran is left out (covered_blocks says how many of the grid's blocks the sampled classes hold).
// Corner and edge blocks are over-represented in a sample and often aligned differently (a tile starting at
// x = 0): unweighted, their sector use would stand for the whole grid's.
struct WholeGridEstimate {
    double bytes_read = 0, bytes_written = 0;
    double load_requests = 0, load_sectors = 0, load_lanes = 0;
    double store_requests = 0, store_sectors = 0, store_lanes = 0;
    double idle_requests = 0;
};
// Shared memory the same way (a counted class's blocks, weighted; where the count had shared counting on).
struct WholeGridShared {
    double bytes_read = 0, bytes_written = 0;
    double load_requests = 0, load_wavefronts = 0, load_conflicts = 0;
    double store_requests = 0, store_wavefronts = 0, store_conflicts = 0;
    double lane_requests = 0, lanes = 0, idle_requests = 0;
};
struct WholeGridCount {
    std::vector<WholeGridEstimate> ranges;  // one per range of the count
    WholeGridShared shared;                 // not scaled by page_every: shared memory has no sampled pages
    unsigned long long grid_blocks = 0, covered_blocks = 0;  // over all launches
};
// `page_every`: per range (missing: 1). Launches that ran whole (or recorded no blocks) count as they ran.
WholeGridCount estimate_whole_grid(const AccessCount& count, const std::vector<unsigned>& page_every = {});

// Global bytes read per byte written by each block of a count, alone (blocks that wrote nothing left out; a range
// any block wrote is an output). analyze_access takes the first count's figure for the grid only where its blocks
// agree, and counts a block of each class where they do not and none of them is in the grid's interior.
std::vector<double> bytes_per_byte_of_blocks(const AccessCount& count);

// The blocks a BlockSample of `grid` must hold to reach `interior` blocks of the interior: the sample takes
// every corner, one block per edge and face first (read_counter.h). 0: the grid has no interior (or runs
// whole with fewer).
unsigned long long sample_reaching_interior(dim3 grid, unsigned long long interior);

struct TimedLaunchCount {
    GeometryCheck launch;                  // what ran: its call, size and buffers
    AccessCount count;                     // count.ranges: one per buffer, in the launch's buffer order
    std::vector<RecordedLaunch> launches;  // as recorded: kernel, grid, block, shared memory
    std::vector<unsigned> page_every;      // per buffer, as counted
    unsigned long long blocks_run = 0, grid_blocks = 0;  // over all launches
    std::size_t touched_bytes = 0;         // memory the sample filled, all buffers
    double seconds = 0;  // wall time, for the report only: no decision reads it (access_analysis.cpp)

    // A buffer's bytes read and written by the sampled blocks, scaled back from its counted pages.
    double bytes_read(std::size_t buffer) const;
    double bytes_written(std::size_t buffer) const;
    // Every buffer's counts over the whole launch (estimate_whole_grid with this count's page_every).
    WholeGridCount whole_grid() const { return estimate_whole_grid(count, page_every); }
    // "launch_step_tiled at 8192x8192 (32 of its 262144 blocks counted)"
    std::string describe() const;
};

// Counts one timed launch (blocks sampled with the run's seed). count.available false: count.why says why (also
// where launch.draws does not describe every buffer: a grader error). Exceptions from the launch function propagate.
TimedLaunchCount count_timed_launch(const GeometryCheck& launch, const TimedCountOptions& options = {});

// The configuration a technique is approved on: the kernel of the launch with the most blocks, its block shape
// and shared memory per block. Every technique test of a kernel and its timed launch must see one.
struct KernelConfiguration {
    const void* kernel = nullptr;
    dim3 block;
    std::size_t shared_bytes = 0;
    std::string where;  // "launch_step_tiled(nx=129, ny=65)", the call that launched it
    bool same_as(const KernelConfiguration& o) const;
    std::string describe() const;  // "block 32x8x1, 1360 B shared"
};
// The main launch (most blocks) of `launches`; kernel null when there is none.
KernelConfiguration configuration_of(const std::vector<RecordedLaunch>& launches, const std::string& where);

// The launches a dry run of a timed launch records, nothing launched, on buffers of its sizes (at most `max_bytes`
// each, where only the grid is wanted; a launch function may look at its pointers' allocations). On a GPU: CPU
// execution mode's dry run does not see a kernel's static shared memory (timed_configuration runs a block there).
std::vector<RecordedLaunch> dry_run_timed(const GeometryCheck& launch, std::size_t max_bytes = SIZE_MAX);

// The configuration the speed test times for `launch`, named `where` in messages: on a GPU from a dry run, in CPU
// execution mode from one block run with nothing counted. A technique test holds its own launches to it.
KernelConfiguration timed_configuration(const GeometryCheck& launch, const std::string& where);

// Fails the current test when `seen` holds two configurations, naming both, where and at which size.
void expect_one_configuration(const std::vector<KernelConfiguration>& seen, const std::string& launcher);

}  // namespace gpulab
