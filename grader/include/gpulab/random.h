// Seeded random inputs: every run draws fresh values, and the seed printed with a failure
// reproduces it (GPULAB_SEED=<seed>).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace gpulab {

// The run's seed: $GPULAB_SEED when set, else drawn once per process from the clock.
std::uint64_t run_seed();

class Rng {
public:
    // Distinct, reproducible streams per test: derived from the run seed and the test's full name.
    static Rng for_current_test();
    explicit Rng(std::uint64_t seed) : seed_(seed), engine_(seed) {}

    std::uint64_t seed() const { return seed_; }
    // A seed for a counter_uniform stream, drawn from this one.
    std::uint64_t draw_seed() { return engine_(); }
    double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(engine_); }
    // n values in [lo, hi), filled on every core (one seed drawn from this stream: counter_uniform).
    std::vector<float> uniform_floats(std::size_t n, float lo, float hi);

private:
    std::uint64_t seed_;
    std::mt19937_64 engine_;
};

// Value i of a stream that many threads can fill at once (parallel_for.h): uniform in [0, 1), a function of
// (seed, i) alone, so a field of a billion cells comes out the same on one core or sixteen.
double counter_uniform(std::uint64_t seed, std::size_t i);

}  // namespace gpulab
