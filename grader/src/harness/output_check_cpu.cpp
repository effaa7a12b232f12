// CPU execution mode: device buffers are host memory, so the comparison is a plain loop.
#include "gpulab/output_check.h"

namespace gpulab {

std::size_t count_differing_bytes(const void* a, const void* b, std::size_t bytes) {
    const auto* x = static_cast<const unsigned char*>(a);
    const auto* y = static_cast<const unsigned char*>(b);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < bytes; ++i) differing += x[i] != y[i];
    return differing;
}

}  // namespace gpulab
