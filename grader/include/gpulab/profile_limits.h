// How many kernels one launch function call may run and still be profiled: a limit the GPU's drawn samples
// (sample_counters.h) and CPU execution mode's counts (shared_reads.h) both hold a launch to.
#pragma once

#include <cstddef>

namespace gpulab {

// At most this many kernels of one launch function call are profiled: a launch function of hundreds of small kernels
// would otherwise make a drawn sample take minutes (each kernel is replayed once per pass). More is the launch
// function's doing (every lab's launch runs one or two kernels), and its speed points wait (timed_samples.cpp).
inline constexpr std::size_t kMaxProfiledKernels = 16;

}  // namespace gpulab
