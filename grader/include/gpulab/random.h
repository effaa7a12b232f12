// Seeded random inputs: every run draws fresh values, and the seed printed with a failure
// reproduces it (GPULAB_SEED=<seed>).
#pragma once

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
    double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(engine_); }
    std::vector<float> uniform_floats(std::size_t n, float lo, float hi) {
        std::uniform_real_distribution<float> dist(lo, hi);
        std::vector<float> values(n);
        for (float& v : values) v = dist(engine_);
        return values;
    }

private:
    std::uint64_t seed_;
    std::mt19937_64 engine_;
};

}  // namespace gpulab
