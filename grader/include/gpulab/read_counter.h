// How often a student's kernels read an input buffer, counted exactly: what a technique check needs to see
// use rather than bytes (a shared tile that is written and never read from is no tile).
//
// Available in the CPU-mode grader on x86-64 Linux (CPU execution mode protects the buffer's pages and
// counts each access; see grader/cpu/include/gpulab_cpu/read_count.h). Elsewhere `available` is false and
// `why` says why; tests that use it skip with GPULAB_REQUIRE_READ_COUNTER(). Such tests are marked
// "run_in": "cpu" in lab.json, so gpulab-grade runs them with the CPU-mode grader on a GPU machine too.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <string>

namespace gpulab {

struct ReadCount {
    bool available = false;
    std::string why;                          // why nothing was counted, or what spoiled the count
    unsigned long long reads = 0;             // load instructions of the kernels that touched the range
    unsigned long long writes = 0;            // their stores into the range (a kernel writing its input)
    unsigned long long host_bytes_read = 0;   // bytes cudaMemcpy* copied out of the range meanwhile
    unsigned long long launches = 0;          // kernel launches while work() ran
};

// Whether reads can be counted in this grader; fills *why when not.
bool read_counting_available(std::string* why = nullptr);

// Runs work() (any number of launches) and counts the reads of [begin, begin + bytes) of a device buffer
// by the kernels it launches. A vector load counts once. Exceptions from work() propagate.
ReadCount count_device_reads(const void* begin, std::size_t bytes, const std::function<void()>& work);

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
