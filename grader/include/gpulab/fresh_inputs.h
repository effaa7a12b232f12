// Fresh inputs for every timed launch, written on the device between samples, and the grader's way of
// knowing any one of them on the host without copying the input back.
//
// A timed launch must solve a problem it has never seen: a launch that remembers its last answer, keyed
// by its buffers or by a few sampled input values, then has nothing to hit. Input i of a draw is a
// counter-based hash of (seed, i) turned into lo + k * step with a 20-bit k, so the device's generator
// and the host's `at(i)` agree bit for bit (lo a multiple of step, both exact in float: no rounding
// anywhere), and a spot check of the output can recompute any cell in double from the inputs it needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__CUDACC__)
#define GPULAB_HOST_DEVICE __host__ __device__
#else
#define GPULAB_HOST_DEVICE
#endif

namespace gpulab {

// splitmix64's finaliser: every bit of (seed, i) reaches every bit of the result.
GPULAB_HOST_DEVICE inline std::uint64_t fresh_hash(std::uint64_t seed, std::uint64_t i) {
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct FreshDraw {
    std::uint64_t seed = 0;
    float lo = -1.0f;                  // the smallest value
    float step = 1.0f / (1 << 19);     // a power of two; values are lo + k * step, k < 2^20
    // Input i, exactly as the device wrote it.
    GPULAB_HOST_DEVICE double at(std::size_t i) const {
        return double(lo) + double(std::uint32_t(fresh_hash(seed, i) >> 44)) * double(step);
    }
    // Byte i of a byte draw (every value 0 ... 255).
    GPULAB_HOST_DEVICE std::uint8_t byte_at(std::size_t i) const { return std::uint8_t(fresh_hash(seed, i) >> 56); }
};

// Writes draw.at(i) (or byte_at(i)) into d[0 ... n-1] on the device, asynchronously on the default stream.
void fill_fresh(float* d, std::size_t n, const FreshDraw& draw);
void fill_fresh(double* d, std::size_t n, const FreshDraw& draw);
void fill_fresh(std::uint8_t* d, std::size_t n, const FreshDraw& draw);

// The values of the given cells of a device buffer (a gather on the device, then one small copy).
std::vector<double> gather_cells(const float* d, const std::vector<std::size_t>& cells);
std::vector<double> gather_cells(const double* d, const std::vector<std::size_t>& cells);
std::vector<double> gather_cells(const std::uint8_t* d, const std::vector<std::size_t>& cells);

}  // namespace gpulab
