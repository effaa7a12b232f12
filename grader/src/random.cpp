#include "gpulab/random.h"

#include <gtest/gtest.h>

#include <chrono>
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

}  // namespace gpulab
