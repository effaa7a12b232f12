// Compares two device buffers on the device (timing.cpp's check that every timed launch rewrote its output).
#pragma once

#include <cstddef>

namespace gpulab {

// How many bytes of the two device buffers differ. Synchronizes.
std::size_t count_differing_bytes(const void* a, const void* b, std::size_t bytes);

}  // namespace gpulab
