// Counting how often kernels read one device buffer (CPU execution mode only; for graders, not student code).
//
// A technique check must see what a kernel does, not what it declares: a tiled stencil that copies a tile into
// shared memory and then reads every neighbour from global memory anyway has the tile's bytes but not its use.
// count_device_reads() runs `work` (any number of launches, of any kernels) and counts exactly the load
// instructions with which CUDA threads read [begin, begin + bytes) of a cudaMalloc buffer: the buffer's pages
// are PROT_NONE for the duration, every access faults once, is counted, and is single-stepped with the page
// readable. The grid runs on one worker thread while counting (mprotect is process-wide). A vector load of
// several elements counts once; a store into the range is counted as a write, and still happens.
//
// Cost: a few microseconds per counted access (two signals, two mprotect calls). Needs x86-64 Linux (the trap
// flag); elsewhere `supported` is false and `why` says so.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

namespace gpulab::cpu {

struct ReadCount {
  bool supported = false;                   // false: nothing was counted (see why); work() did not run
  std::string why;                          // why counting is unavailable, or what spoiled the count
  unsigned long long reads = 0;             // load instructions of CUDA threads that touched the range
  unsigned long long writes = 0;            // store instructions of CUDA threads into the range
  unsigned long long host_bytes_read = 0;   // bytes runtime calls (cudaMemcpy*) copied out of the range
  unsigned long long launches = 0;          // kernel launches while work() ran
};

// Whether this build and machine can count; fills *why when not.
bool read_counting_supported(std::string* why = nullptr);

// Runs work() and counts the reads of [begin, begin + bytes) by kernels it launches. `begin` must point into a
// live cudaMalloc buffer (bytes 0: to its end). Exceptions from work() propagate after the buffer is restored.
// Not reentrant; call from the thread that launches the kernels.
ReadCount count_device_reads(const void* begin, size_t bytes, const std::function<void()>& work);

}  // namespace gpulab::cpu
