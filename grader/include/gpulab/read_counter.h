// How often a student's kernels read and write device buffers, counted exactly: what a technique check needs
// to see use rather than bytes (a shared tile that is written and never read from is no tile), on the launch
// that is timed too (a sample of its blocks, on lazily filled buffers of the timed size).
//
// Available in the CPU-mode grader on x86-64 Linux with Capstone (CPU execution mode protects the buffers'
// pages and counts each access; see grader/cpu/include/gpulab_cpu/read_count.h). Elsewhere `available` is
// false and `why` says why; tests that use it skip with GPULAB_REQUIRE_READ_COUNTER(). Such tests are marked
// "run_in": "cpu" in lab.json, so gpulab-grade runs them with the CPU-mode grader on a GPU machine too.
//
// Compare bytes (or elements), not instructions: the host compiler merges loads (a pixel's three channel
// loads may be two instructions, or one) where nvcc does not, so `reads` depends on the compiler.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpulab {

struct ReadCount {
    bool available = false;
    std::string why;                          // why nothing was counted, or what spoiled the count
    unsigned long long reads = 0;             // load instructions of the kernels that touched the range
    unsigned long long writes = 0;            // their stores into the range (a kernel writing its input)
    unsigned long long bytes_read = 0;        // bytes those loads read inside the range
    unsigned long long bytes_written = 0;     // bytes those stores wrote inside the range
    unsigned long long host_bytes_read = 0;   // bytes cudaMemcpy* copied out of the range meanwhile
    unsigned long long launches = 0;          // kernel launches while work() ran
};

// Whether reads can be counted in this grader; fills *why when not.
bool read_counting_available(std::string* why = nullptr);

// Runs work() (any number of launches) and counts the reads of [begin, begin + bytes) of a device buffer
// by the kernels it launches (bytes 0: to the buffer's end). Exceptions from work() propagate.
ReadCount count_device_reads(const void* begin, std::size_t bytes, const std::function<void()>& work);

// ---- several ranges at once, reads and writes, and a sample of the blocks of each launch ----
struct CountedRange {
    const void* begin = nullptr;  // inside a device buffer (cudaMalloc'ed, or a LazyDeviceBuffer)
    std::size_t bytes = 0;        // 0: to the end of that buffer
    // Count one page in page_every (chosen by hashing the page's index in its buffer with page_seed: two buffers
    // of one layout get the same pages). For a launch whose sampled blocks walk thousands of pages each: a ratio
    // of two such ranges' counts keeps its expectation, each total is 1/page_every of the whole.
    unsigned page_every = 1;
    unsigned long long page_seed = 0;
};

struct RangeCount {
    unsigned long long loads = 0;            // load instructions that read inside the range
    unsigned long long stores = 0;           // store instructions that wrote inside it
    unsigned long long bytes_read = 0;       // their bytes inside the range (an access straddling its edge
    unsigned long long bytes_written = 0;    //   counts only the bytes inside)
    unsigned long long host_bytes_read = 0;  // bytes cudaMemcpy* copied out of the range
    // As a GPU's memory system sees them (exact with page_every 1): one request per instruction per warp (32
    // consecutive threads, x fastest) and the 32-byte sectors it touches; coalesced 4-byte lanes: 4 per request.
    unsigned long long load_requests = 0, load_sectors = 0;
    unsigned long long store_requests = 0, store_sectors = 0;
    unsigned long long load_lanes = 0, store_lanes = 0;  // lanes those requests served
    // Requests issued by fewer lanes than their warp has threads (a branch split the warp, or lanes returned; the
    // short last warp of a block of 48 threads is not idle). Exact only with page_every 1.
    unsigned long long idle_requests = 0;
};

// Each launch runs only `count` of its blocks: every corner block of the grid, one block on each edge (and
// face), random interior blocks drawn from `seed`; a grid of no more than `count` blocks runs whole.
struct BlockSample {
    unsigned long long count = 32;
    unsigned long long seed = 1;
    unsigned long long interior_run = 1;  // gpulab_cpu/read_count.h BlockSample::interior_run
    // Sampling inside a block: each ends at its first barrier after this many counted global accesses (0: whole).
    unsigned long long block_accesses = 0;  // gpulab_cpu/read_count.h BlockSample::block_accesses
};

// Shared memory, counted when asked (count_device_accesses' `shared`): each warp request (one instruction, one
// warp, the n-th time each lane runs it) takes as many wavefronts as the most distinct 4-byte words one of the
// 32 banks must deliver; those above one per 32 distinct words are bank conflicts.
struct SharedCount {
    bool counted = false;
    unsigned long long loads = 0, stores = 0;  // instructions (per thread)
    unsigned long long bytes_read = 0, bytes_written = 0;
    unsigned long long load_requests = 0, load_wavefronts = 0, load_conflicts = 0;
    unsigned long long store_requests = 0, store_wavefronts = 0, store_conflicts = 0;
    unsigned long long blocks_capped = 0;  // blocks whose count stopped at faults_per_block
    // Of the blocks counted whole: their requests, the active lanes of those, and those with idle lanes.
    unsigned long long lane_requests = 0, lanes = 0, idle_requests = 0;
};
struct SharedCounting {
    bool on = false;
    unsigned long long faults_per_block = 0;  // 0: all; else the rest of a block runs uncounted
    // In a sampled launch, count shared memory in at most this many blocks of each class of the grid (per
    // dimension the first block, an inner one, the last; 0: every block). The others' block_shared entries have
    // counted = false (estimate_whole_grid leaves them out).
    unsigned long long blocks_per_class = 0;
    double least_class_share = 0;  // with blocks_per_class: none in classes holding less of the grid's blocks
};

struct CountedLaunch {
    std::string kernel;  // its name at the launch site
    dim3 grid, block;
    unsigned long long grid_blocks = 0;
    bool sampled = false;  // only a sample of its blocks ran
    // The blocks that ran (ascending linear index) and what each did to each range, at(i, range). Empty for a
    // launch of more than 65536 blocks that was not sampled.
    std::vector<dim3> blocks;
    std::vector<RangeCount> block_counts;  // blocks.size() x ranges, block by block
    std::vector<SharedCount> block_shared;  // with SharedCounting::on: each of those blocks' shared accesses
    std::size_t range_count = 0;
    const RangeCount& at(std::size_t block_index, std::size_t range) const {
        return block_counts[block_index * range_count + range];
    }
};

// What one instruction did over a count (gpulab_cpu/read_count.h InstructionCount): `ip` its address in this process.
struct InstructionCount {
    std::uintptr_t ip = 0;
    unsigned long long load_requests = 0, load_sectors = 0, load_lanes = 0;
    unsigned long long store_requests = 0, store_sectors = 0, store_lanes = 0;
    unsigned long long shared_load_requests = 0, shared_load_conflicts = 0;
    unsigned long long shared_store_requests = 0, shared_store_conflicts = 0;
    unsigned long long idle_requests = 0;
    unsigned long long memory_requests() const {
        return load_requests + store_requests + shared_load_requests + shared_store_requests;
    }
};

struct AccessCount {
    bool available = false;
    std::string why;                  // why nothing was counted, or what spoiled the count
    std::vector<RangeCount> ranges;   // one per CountedRange, in order
    unsigned long long launches = 0;
    unsigned long long blocks_run = 0;
    std::vector<CountedLaunch> counted_launches;  // one per launch, in order
    SharedCount shared;                           // with SharedCounting::on
    std::vector<InstructionCount> instructions;   // every instruction that made a request, by address
    // The count stopped before the work ended (its ceiling of accesses, or the memory or mappings it needs): `why`
    // says where, and the block it stopped in is left out of the requests (its warps' requests were not whole).
    bool stopped_early = false;
    unsigned long long accesses = 0;    // counted accesses, global and shared (each a fault and a single step)
    unsigned long long blocks_cut = 0;  // blocks ended at a barrier by BlockSample::block_accesses
};

// Runs work() and counts what the kernels it launches read and wrote in each range; with `sample`, every
// launch runs only the sampled blocks (the rest of the grid does nothing: a grader checks the sampled
// blocks' output only). `max_accesses` (0: CPU execution mode's own ceiling) stops the count after that many
// accesses. Exceptions from work() propagate.
AccessCount count_device_accesses(const std::vector<CountedRange>& ranges, const std::function<void()>& work,
                                  const BlockSample* sample = nullptr, const SharedCounting* shared = nullptr,
                                  unsigned long long max_accesses = 0);

// A device buffer of the timed size whose memory costs nothing until it is touched, for counting a sample of
// the timed launch's blocks. `fill(dst, offset, len)` writes the values of bytes [offset, offset + len) of the
// buffer to dst; without one the buffer holds the word 0xFFFADBAD (CPU execution mode's fresh memory).
//   CPU execution mode: gpulab::cpu::malloc_lazy: each page is filled at its first access (by a kernel, a
//     copy, or host code), inside the SIGSEGV handler: the filler must only compute and write its values.
//   GPU: a plain cudaMalloc, filled at once through a 64 MiB host buffer by the filler (costs the whole
//     size, on the GPU and in time; counting is CPU-only, so the GPU grader needs these only to share code).
class LazyDeviceBuffer {
public:
    using Filler = std::function<void(void* dst, std::size_t offset, std::size_t len)>;
    explicit LazyDeviceBuffer(std::size_t bytes, Filler fill = nullptr);
    ~LazyDeviceBuffer();
    LazyDeviceBuffer(const LazyDeviceBuffer&) = delete;
    LazyDeviceBuffer& operator=(const LazyDeviceBuffer&) = delete;

    void* data() const { return ptr_; }
    template <class T>
    T* as() const { return static_cast<T*>(ptr_); }
    std::size_t bytes() const { return bytes_; }
    bool lazy() const;                  // true in CPU execution mode
    std::size_t touched_bytes() const;  // what it costs so far: filled pages (CPU mode), bytes() on a GPU

private:
    void* ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

// How a tiled kernel's reads per output compare with the naive stencil's `naive` (its number of
// neighbours): about as many (the naive kernel in the tiled slot), more (a tile copied, then the
// neighbours read from global memory anyway: a spoofed tile), or fewer but still too many (some
// neighbours from global memory, or a very small tile). Each lab words the advice for its stencil.
enum class TileUse { like_naive, beyond_naive, partly_from_global };
TileUse classify_tile_use(double reads_per_output, double naive);

}  // namespace gpulab

#define GPULAB_REQUIRE_READ_COUNTER()                                                  \
    do {                                                                               \
        std::string gpulab_why_;                                                       \
        if (!::gpulab::read_counting_available(&gpulab_why_)) GTEST_SKIP() << gpulab_why_; \
    } while (0)
