// Lab 02's part of the sanitizer pass (gpulab/sanitizer_check.h): the naive and tiled steps and the walls,
// each launched once on a 45 x 37 grid (no tile divides it), on exactly sized buffers, for Sanitizer.NoErrors
// to run under compute-sanitizer.
#include "api.h"
#include "oracle.h"

#include "gpulab/grader_test.h"
#include "gpulab/random.h"
#include "gpulab/sanitizer_check.h"

namespace {

namespace oracle = heat_2d_oracle;

const bool kSanitizerWorkload = gpulab::add_sanitizer_workload([] {
    const Heat2dApi& api = gpulab::lab_api<Heat2dApi>(gpulab::Role::student, "02-heat-2d");
    const oracle::Grid g{45, 37};
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> in = rng.uniform_floats(g.cells(), 0.5f, 2.0f);
    const float r = 0.2f;
    gpulab::Shape grid;
    grid.nx = std::size_t(g.pitch());
    grid.ny = std::size_t(g.ny + 2);
    const std::vector<double> stepped = oracle::step(oracle::widen(in), g, r);
    gpulab::ExactDeviceArray<float> d_in(in);
    for (const auto& [name, launch] : {std::pair{"launch_step_naive", api.launch_step_naive},
                                       std::pair{"launch_step_tiled", api.launch_step_tiled}}) {
        // The output starts as a copy of the input: a step leaves the ghost ring alone, as the oracle does.
        gpulab::ExactDeviceArray<float> d_out(in);
        launch(d_in.data(), d_out.data(), g.nx, g.ny, r);
        gpulab::check_student_launch(name);
        gpulab::check_workload_output(name, gpulab::compare(d_out.download(), stepped, grid, {1e-5, 1e-6}));
    }
    api.launch_boundary(d_in.data(), g.nx, g.ny);
    gpulab::check_student_launch("launch_boundary");
    std::vector<double> walls = oracle::widen(in);
    oracle::apply_walls(walls, g);
    gpulab::check_workload_output("launch_boundary", gpulab::compare(d_in.download(), walls, grid, {0, 0}));
});

}  // namespace
