// What lab 01's checks share: the solutions, the config, the rod's dimension and its random temperatures.
#pragma once

#include "api.h"

#include "heat_dimension.h"

#include "gpulab/lab_config.h"
#include "gpulab/random.h"

#include <vector>

namespace heat_rod_grading {

using gpulab::Json;

inline constexpr const char* kLab = "01-heat-rod";
inline constexpr heat_grading::Dimension kRod{1};

const HeatRodApi& student();
const HeatRodApi& reference();
const Json& section(const char* name);

// The rod's interior cells, 1 .. M-2.
template <typename T>
std::vector<T> interior_of(const std::vector<T>& f) {
    return std::vector<T>(f.begin() + 1, f.end() - 1);
}

// Random temperatures, nonzero everywhere (a missing neighbour read as 0 must show).
std::vector<float> random_rod(gpulab::Rng& rng, int M);

}  // namespace heat_rod_grading
