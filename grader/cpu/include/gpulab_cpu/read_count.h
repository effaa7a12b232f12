// Counting the device-memory accesses of kernels (CPU execution mode only; for graders, not student code).
//
// A technique check must see what a kernel does, not what it declares: a tiled stencil that copies a tile into
// shared memory and then reads every neighbour from global memory anyway has the tile's bytes but not its use.
// count_device_accesses() runs `work` (any number of launches, of any kernels) and counts exactly the load and
// store instructions with which CUDA threads touch each of several ranges of device buffers, and the bytes
// they read and write there: the ranges' pages are PROT_NONE for the duration, every access faults once, the
// faulting instruction is decoded (Capstone) for the address and size of its memory operands, counted, and
// single-stepped with the page open. Bytes, not instructions, are what a check should compare: the host
// compiler merges loads differently from nvcc (three adjacent byte loads may become one 4-byte load).
// The grid runs on one worker thread while counting (mprotect is process-wide).
//
// With a BlockSample, each launch runs only a deterministic sample of its blocks (corners, some edge and face
// blocks, random interior ones), so that the launch a grader times (its own grid and arguments) can be counted
// too; with lazy device memory (lazy_memory.h) the blocks that do not run cost nothing either.
//
// Cost: a few microseconds per counted access (two signals, two mprotect calls, a cached decode). Needs
// x86-64 Linux (the trap flag) and Capstone (Debian: libcapstone-dev); elsewhere `supported` is false and
// `why` says so.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>
#include "types.h"

namespace gpulab::cpu {

// One counted range: [begin, begin + bytes) inside a live device buffer (cudaMalloc or malloc_lazy);
// bytes 0: to the end of that buffer. Ranges may lie in different buffers, or overlap (each counts for itself).
// With page_every > 1 only one page in page_every of the range is counted (chosen by hashing the page's index
// in its buffer with page_seed, so two buffers of one layout get the same pages): a launch whose sampled blocks
// each walk thousands of pages (a kernel coarsened along z) is counted on a fraction of them. Ratios of two
// such ranges' counts (bytes read per byte written) keep their expectation; totals are 1/page_every of it.
struct CountedRange {
  const void* begin = nullptr;
  size_t bytes = 0;
  unsigned page_every = 1;
  unsigned long long page_seed = 0;
};

// What CUDA threads (and runtime copies) did to one range.
struct RangeCount {
  unsigned long long loads = 0;            // instructions that read inside the range (a read-modify-write
  unsigned long long stores = 0;           //   counts as a load and a store), and those that wrote there
  unsigned long long bytes_read = 0;       // bytes of those accesses inside the range (an access straddling
  unsigned long long bytes_written = 0;    //   its edge counts only its bytes inside)
  unsigned long long host_bytes_read = 0;  // bytes runtime calls (cudaMemcpy*) copied out of the range
  // The warp-level view a GPU's memory system has (exact where page_every is 1): the accesses of one instruction
  // by the lanes of one warp (32 consecutive threads of the block, x fastest, as a GPU forms warps), the n-th time
  // each lane executes it, are one request; a request touches the 32-byte sectors its lanes' bytes lie in.
  // A fully coalesced 4-byte load of 32 lanes is 1 request of 4 sectors; 32 lanes 128 bytes apart, 32 sectors.
  unsigned long long load_requests = 0, load_sectors = 0;
  unsigned long long store_requests = 0, store_sectors = 0;
  // The lanes those requests served: sectors per lane near 1 means the lanes share no sector (far apart).
  unsigned long long load_lanes = 0, store_lanes = 0;
  // Requests (loads and stores) issued by fewer lanes than their warp has threads: a request under a branch that
  // split the warp, or after some of its lanes returned. The last warp of a block whose thread count is no multiple
  // of 32 has fewer threads; its full requests are not idle. Exact only where page_every is 1 (a request whose
  // lanes fall on a page that is not counted loses those lanes).
  unsigned long long idle_requests = 0;
};

// Each launch of a count runs only a sample of its blocks: every corner block of the grid (2^d for the d
// dimensions with more than one block), one block on each edge (and, in 3D, each face) that is no corner,
// then random interior blocks, up to `count` blocks in all; all blocks when the grid has no more than
// `count`. Deterministic: the same grid and seed give the same blocks (see sample_blocks()).
struct BlockSample {
  unsigned long long count = 32;
  unsigned long long seed = 1;
  // The interior blocks in runs of this many consecutive positions along the grid's first multi-block dimension
  // (x), each block of a run at its own random place in the other dimensions, instead of one at a time: a block's sector pattern repeats with its position along x (a tile
  // of 6 floats starts 24 bytes further each block: 4 patterns), and 24 blocks drawn one by one mix those patterns
  // unevenly (lab 04's tiled 512^3 store sector use read 39% to 56% over six seeds, the GPU 43%); runs of 8 hold
  // every pattern of period 1, 2, 4 or 8 equally.
  unsigned long long interior_run = 1;
  // Sampling inside a block (0: every block runs whole): a block ends at the first barrier it reaches after it
  // counted this many global accesses, its warps' requests whole (every thread finished the phase). A grid-stride
  // loop over 96 blocks of lab 05 walks 43 tiles of 32 planes a block, each access a fault and a single step: its
  // first tiles stand for the rest, as its first blocks stand for the grid. A block with no barrier after the
  // point runs to its end (its requests would lose lanes if cut between two threads): the count's own ceiling
  // bounds it. AccessCount::blocks_cut says how many blocks ended so.
  unsigned long long block_accesses = 0;
};

// Options of a count beyond its ranges.
struct CountOptions {
  // Count the CUDA threads' shared-memory accesses too (static __shared__ arrays and the dynamic buffer), with
  // the bank conflicts of each warp request. Up to shared_faults_per_block of them per block (0: all); the rest
  // of a block runs uncounted (a kernel walking 500 planes repeats its first planes' pattern).
  bool shared = false;
  unsigned long long shared_faults_per_block = 0;
  // Count shared memory in at most this many blocks of each class of a sampled launch's grid (per dimension: the
  // first block, an inner one, the last; 27 classes in 3D), the first that run (0: in every block). The others run
  // with their shared pages open; their block_shared entry has counted = false. Bank conflicts are the same in
  // every block of a class: a sample that must reach the interior for its global figures need not pay for shared
  // counting in all its blocks.
  unsigned long long shared_blocks_per_class = 0;
  // With shared_blocks_per_class: leave out the classes that hold less than this share of the grid's blocks (a
  // 64^3 grid's 8 corners and 12 edges hold 0.3% of it; its interior 91%, its 6 faces 9%).
  double shared_least_class_share = 0;
  // The most accesses this count records before it stops (0: kMaxCountedAccesses, below). Not an environment
  // variable: the student's code runs in this process and could set one.
  unsigned long long max_accesses = 0;
};

// The most accesses one count records (global and shared, each a fault and a single step, about 10 us on a 2-core
// machine): the course's references and variants take at most 119,474 (lab 05's timed launch, 32 blocks). A launch
// whose blocks each loop over many outputs (a grid-stride loop over a small grid) would otherwise take minutes and
// gigabytes; its count stops there, every page opened, and AccessCount::why says so (the figures so far stand, as
// after a freed buffer). CountOptions::max_accesses sets another ceiling (tests).
inline constexpr unsigned long long kMaxCountedAccesses = 750000;

// The most launches of one call a count with a BlockSample counts: the rest run no block (their output is not read).
// The references make one or two launches a call; a launch per plane of a 3D grid makes 447 at 449^3, the same
// kernel each time, so the first ones stand for them. The GPU's profiler reads as many (profile_limits.h).
inline constexpr std::size_t kMaxSampledLaunches = 16;
// Past this many launches, one that repeats a counted launch's kernel and shape, starting after the call's launches
// ran a launch's sample of blocks, is not counted (read_count.cpp, count_launch_begins).
inline constexpr std::size_t kRepeatsCounted = 2;

// Shared memory as a GPU's shared-memory unit sees it: each warp request (one instruction, one warp, the n-th
// time each lane runs it) is served in as many wavefronts as the most distinct 4-byte words any one of the 32
// banks (word % 32) must deliver; lanes reading the same word share it. A request needs at least one wavefront
// per 32 distinct words: the wavefronts above that are its bank conflicts. Counted as nvcc's code would issue the
// access, not as the host compiler did (read_count.cpp, fold_shared_requests), decided for the whole warp request
// (the instruction), never by one lane's address: an 8- or 16-byte access aligned to its width in every lane is one
// LDS.64/LDS.128 served in phases of 16 or 8 lanes; a 16-byte access aligned to 8 in every lane (two doubles the
// host compiler merged) is two LDS.64; any other access is split per byte into the word requests nvcc's narrower
// loads would make (a host-merged 2-byte load across a word boundary is two requests, not one).
struct SharedCount {
  bool counted = false;
  unsigned long long loads = 0, stores = 0;              // instructions (per thread)
  unsigned long long bytes_read = 0, bytes_written = 0;
  unsigned long long load_requests = 0, load_wavefronts = 0, load_conflicts = 0;
  unsigned long long store_requests = 0, store_wavefronts = 0, store_conflicts = 0;
  unsigned long long blocks_capped = 0;                   // blocks that ran out of shared_faults_per_block
  // The lanes of the requests of blocks counted whole (a capped block's last requests lose lanes): lane_requests of
  // them (loads and stores), `lanes` active lanes in all, idle_requests issued by fewer lanes than their warp has
  // threads (RangeCount::idle_requests).
  unsigned long long lane_requests = 0, lanes = 0, idle_requests = 0;
};

// What one instruction of the counted kernels did over the count: `ip` is its address in the process (inside the
// solution library whose kernel it is; its line table maps it to a line of the student's .cu, since gpulab-cu2cpp
// keeps the file's lines). Global requests and sectors as RangeCount's (all ranges together), shared requests and
// conflicts as SharedCount's, requests with idle lanes as both count them.
struct InstructionCount {
  uintptr_t ip = 0;
  unsigned long long load_requests = 0, load_sectors = 0, load_lanes = 0;
  unsigned long long store_requests = 0, store_sectors = 0, store_lanes = 0;
  unsigned long long shared_load_requests = 0, shared_load_conflicts = 0;
  unsigned long long shared_store_requests = 0, shared_store_conflicts = 0;
  unsigned long long idle_requests = 0;
};

// One launch that ran while counting.
struct LaunchBlocks {
  std::string kernel;                    // as written at the launch site
  dim3 grid, block;
  unsigned long long grid_blocks = 0;    // blocks in the grid
  bool sampled = false;                  // only a sample of the grid's blocks ran
  // The blocks that started, in the order they ran (ascending linear index), and what each did to each
  // range: block_counts[i * ranges + r]. Both stay empty for a launch of more than kMaxRecordedBlocks blocks
  // that was not sampled (its totals are still counted). A launch that failed stops early: only the blocks
  // that started are listed.
  std::vector<uint3> blocks;
  std::vector<RangeCount> block_counts;
  // With CountOptions::shared: what each of those blocks did in shared memory, block_shared[i] (a class of blocks
  // of the grid stands for itself, as the ranges' counts do: the corners of a 3D grid are not its interior).
  std::vector<SharedCount> block_shared;
  size_t range_count = 0;  // ranges of the count
  const RangeCount& at(size_t block_index, size_t range) const { return block_counts[block_index * range_count + range]; }
};
constexpr unsigned long long kMaxRecordedBlocks = 1ull << 16;

struct AccessCount {
  bool supported = false;  // false: nothing was counted (see why); work() did not run
  std::string why;         // why counting is unavailable, or what spoiled the count
  std::vector<RangeCount> ranges;  // one per CountedRange, in their order
  unsigned long long launches = 0;       // kernel launches while work() ran
  unsigned long long blocks_run = 0;     // blocks that ran, over all launches
  std::vector<LaunchBlocks> launch_blocks;  // one per launch, in order
  // Accesses whose instruction could not be decoded (counted as 1 byte at the faulting address; `why` says
  // how many). 0 on every kernel the course's compilers produce so far.
  unsigned long long undecoded = 0;
  SharedCount shared;  // with CountOptions::shared
  std::vector<InstructionCount> instructions;  // every instruction that made a request, by address
  // The count stopped before the work ended: at its ceiling of accesses, out of memory, or at the operating system's
  // limit of memory mappings (why says which).
  bool stopped_early = false;
  unsigned long long accesses = 0;    // counted accesses, global and shared (each a fault and a single step)
  unsigned long long blocks_cut = 0;  // blocks ended at a barrier by BlockSample::block_accesses
};

// Whether this build and machine can count; fills *why when not.
bool read_counting_supported(std::string* why = nullptr);

// Runs work() and counts the accesses of kernels it launches to each range. With `sample`, every launch runs
// only the sampled blocks. Exceptions from work() propagate after the buffers are restored. Not reentrant;
// call from the thread that launches the kernels. A buffer freed during the count stops the count there.
AccessCount count_device_accesses(const std::vector<CountedRange>& ranges, const std::function<void()>& work,
                                  const BlockSample* sample = nullptr, const CountOptions* options = nullptr);

// The blocks a BlockSample runs of `grid` (ascending linear indices x + gx * (y + gy * z)).
std::vector<unsigned long long> sample_blocks(dim3 grid, const BlockSample& sample);

// ---- the one-range form the labs' read counts were written against ----
struct ReadCount {
  bool supported = false;                   // false: nothing was counted (see why); work() did not run
  std::string why;                          // why counting is unavailable, or what spoiled the count
  unsigned long long reads = 0;             // load instructions of CUDA threads that touched the range
  unsigned long long writes = 0;            // store instructions of CUDA threads into the range
  unsigned long long bytes_read = 0;        // bytes those loads read inside the range
  unsigned long long bytes_written = 0;     // bytes those stores wrote inside the range
  unsigned long long host_bytes_read = 0;   // bytes runtime calls (cudaMemcpy*) copied out of the range
  unsigned long long launches = 0;          // kernel launches while work() ran
};

// count_device_accesses() on one range, every block: [begin, begin + bytes) of a live device buffer
// (bytes 0: to its end).
ReadCount count_device_reads(const void* begin, size_t bytes, const std::function<void()>& work);

}  // namespace gpulab::cpu
