// The grader's own host work (oracles, checks of a whole output, input fields of a billion bytes) on every
// core: at the timed sizes one core spends seconds where a kernel spends a millisecond.
#pragma once

#include <cstddef>
#include <functional>

namespace gpulab {

// How many threads parallel_for uses: $GPULAB_HOST_THREADS when set, else the cores this process may run on.
unsigned host_threads();

// Calls body(begin, end) over consecutive chunks of [0, n) on up to host_threads() threads and waits for
// all of them; chunks are never smaller than `min_chunk` (a small n stays on the calling thread). The
// chunks cover [0, n) in order, chunk k on index k: a caller that keeps per-chunk results merges them in
// that order and gets what one thread would have found. An exception in a body is rethrown here.
void parallel_for(std::size_t n, const std::function<void(std::size_t chunk, std::size_t begin, std::size_t end)>& body,
                  std::size_t min_chunk = 1 << 15);

// How many chunks parallel_for(n, ..., min_chunk) makes: the size of a per-chunk results array.
std::size_t parallel_chunks(std::size_t n, std::size_t min_chunk = 1 << 15);

}  // namespace gpulab
