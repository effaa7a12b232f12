#include "gpulab/random.h"

#include "gpulab/fresh_inputs.h"
#include "gpulab/parallel_for.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>

namespace gpulab {

std::uint64_t run_seed() {
    static const std::uint64_t seed = [] {
        if (const char* env = std::getenv("GPULAB_SEED"); env && *env) return std::stoull(env);
        return std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) % 1000000007ull;
    }();
    return seed;
}

Rng Rng::for_current_test() {
    std::string name = "no-test";
    if (const auto* info = testing::UnitTest::GetInstance()->current_test_info())
        name = std::string(info->test_suite_name()) + "." + info->name();
    const std::uint64_t seed = run_seed() ^ (std::hash<std::string>{}(name) * 0x9E3779B97F4A7C15ull);
    testing::Test::RecordProperty("seed", std::to_string(run_seed()));
    return Rng(seed);
}

std::vector<float> Rng::uniform_floats(std::size_t n, float lo, float hi) {
    std::vector<float> values(n);
    const std::uint64_t seed = draw_seed();
    parallel_for(n, [&](std::size_t, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const float v = float(double(lo) + (double(hi) - double(lo)) * counter_uniform(seed, i));
            values[i] = v < hi ? v : std::nextafter(hi, lo);  // rounding to float may reach hi itself
        }
    });
    return values;
}

double counter_uniform(std::uint64_t seed, std::size_t i) {
    return double(fresh_hash(seed, i) >> 11) * 0x1p-53;  // the top 53 bits: every double in [0, 1) this fine
}

}  // namespace gpulab
