#include "square_grading.h"

namespace heat_2d_grading {

const Heat2dApi& student() { return gpulab::lab_api<Heat2dApi>(gpulab::Role::student, kLab); }
const Heat2dApi& reference() { return gpulab::lab_api<Heat2dApi>(gpulab::Role::reference, kLab); }
const Json& section(const char* name) { return gpulab::config_at(gpulab::lab_config(), name); }

const char* kernel_name(int kernel) { return kernel == kTiledKernel ? "tiled" : "naive"; }
const char* launcher_name(int kernel) { return kernel == kTiledKernel ? "launch_step_tiled" : "launch_step_naive"; }

StepFn step_of(const Heat2dApi& api, int kernel) {
    return kernel == kTiledKernel ? api.launch_step_tiled : api.launch_step_naive;
}

std::string size_name(const Grid& g) { return std::to_string(g.nx) + "x" + std::to_string(g.ny); }
std::string cell_name(int i, int j) { return "(" + std::to_string(i) + ", " + std::to_string(j) + ")"; }

std::vector<Grid> grids_of(const Json& list) {
    std::vector<Grid> grids;
    for (const Json& item : list) grids.push_back({item.at(0).get<int>(), item.at(1).get<int>()});
    return grids;
}

std::vector<float> random_field(gpulab::Rng& rng, const Grid& g) { return rng.uniform_floats(g.cells(), 0.5f, 2.0f); }

std::vector<float> random_insulated_field(gpulab::Rng& rng, const Grid& g) {
    std::vector<float> f = random_field(rng, g);
    oracle::apply_walls(f, g);
    return f;
}

std::vector<double> expected_interior(const std::vector<float>& in, const Grid& g, double r) {
    std::vector<double> out;
    out.reserve(std::size_t(g.nx) * std::size_t(g.ny));
    const std::size_t p = std::size_t(g.pitch());
    for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) {
            const std::size_t c = g.at(i, j);
            const double centre = in[c];
            out.push_back(centre + r * (double(in[c - 1]) + in[c + 1] + in[c - p] + in[c + p] - 4.0 * centre));
        }
    return out;
}

gpulab::Shape interior_shape(const Grid& g) {
    gpulab::Shape shape;
    shape.nx = std::size_t(g.nx);
    shape.ny = std::size_t(g.ny);
    shape.origin_x = 1;
    shape.origin_y = 1;
    return shape;
}

}  // namespace heat_2d_grading
