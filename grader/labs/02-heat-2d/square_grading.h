// What lab 02's checks share: the solutions, the config, the square's dimension, the two step kernels by
// name, the grid's random fields and its interior.
#pragma once

#include "api.h"
#include "oracle.h"

#include "heat_dimension.h"

#include "gpulab/compare.h"
#include "gpulab/lab_config.h"
#include "gpulab/random.h"

#include <string>
#include <vector>

namespace heat_2d_grading {

using gpulab::Json;
using heat_2d_oracle::Grid;
namespace oracle = heat_2d_oracle;

inline constexpr const char* kLab = "02-heat-2d";
inline constexpr heat_grading::Dimension kSquare{2};

const Heat2dApi& student();
const Heat2dApi& reference();
const Json& section(const char* name);

const char* kernel_name(int kernel);    // "naive", "tiled"
const char* launcher_name(int kernel);  // "launch_step_naive", "launch_step_tiled"
using StepFn = void (*)(const float*, float*, int, int, float);
StepFn step_of(const Heat2dApi& api, int kernel);

std::string size_name(const Grid& g);       // "129x65"
std::string cell_name(int i, int j);        // "(3, 4)"
std::vector<Grid> grids_of(const Json& list);  // [[nx, ny], ...]

// Random temperatures, nonzero everywhere, ghost ring and corners included: a neighbour read from
// the wrong place, or a halo cell read as 0, must show.
std::vector<float> random_field(gpulab::Rng& rng, const Grid& g);
// The same with every edge ghost already equal to its interior neighbour (a start that satisfies
// the insulated walls, for the conservation checks).
std::vector<float> random_insulated_field(gpulab::Rng& rng, const Grid& g);

// The interior cells, row by row from (1, 1).
template <typename T>
std::vector<T> interior_of(const std::vector<T>& f, const Grid& g) {
    std::vector<T> inner;
    inner.reserve(std::size_t(g.nx) * std::size_t(g.ny));
    for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) inner.push_back(f[g.at(i, j)]);
    return inner;
}
// The oracle's step on the interior only, straight from the float input (no full-size copies:
// the speed tests check 8192 x 8192 grids).
std::vector<double> expected_interior(const std::vector<float>& in, const Grid& g, double r);
gpulab::Shape interior_shape(const Grid& g);

}  // namespace heat_2d_grading
