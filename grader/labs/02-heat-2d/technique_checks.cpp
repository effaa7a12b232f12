#include "technique_checks.h"

#include "square_grading.h"

#include "tile_reads.h"

#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/launch_geometry.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/random_size.h"
#include "gpulab/read_counter.h"

namespace heat_2d_grading {

using gpulab::fixed;
using gpulab::GuardedDeviceArray;

void check_shared_memory_tile(int kernel) {
    const Json& spec = section("technique");
    const Grid g{spec.at("nx").get<int>(), spec.at("ny").get<int>()};
    auto rng = gpulab::Rng::for_current_test();
    GuardedDeviceArray<float> d_in(g.cells()), d_out(g.cells());
    d_in.upload(random_field(rng, g));
    std::vector<gpulab::RecordedLaunch> launches;
    {
        gpulab::LaunchRecorder recorder;
        step_of(student(), kernel)(d_in.data(), d_out.data(), g.nx, g.ny, 0.2f);
        gpulab::check_student_launch(launcher_name(kernel));
        launches = recorder.launches();
    }
    std::string described;
    for (const auto& launch : launches) described += (described.empty() ? "" : "; ") + launch.describe();
    testing::Test::RecordProperty("student_launch", described.empty() ? "no launch" : described);
    GPULAB_ASSERT(gpulab::launch_recording_supported()) << "grader error: launches cannot be recorded here";
    GPULAB_ASSERT(!launches.empty()) << launcher_name(kernel) << " launched no kernel (nothing was recorded).";

    const double per_thread = spec.at("min_shared_floats_per_thread");
    if (kernel == kTiledKernel) {
        gpulab::record_figure(described, ">= " + fixed(per_thread, 0) + " float of shared memory per thread");
        // The configuration judged here must be the one the speed test times (a dry run of that launch).
        gpulab::KernelConfiguration seen = gpulab::configuration_of(launches, launcher_name(kernel) + std::string("(nx=") +
                                                                                  std::to_string(g.nx) + ", ny=" +
                                                                                  std::to_string(g.ny) + ")");
        for (const gpulab::GeometryCheck& timed : gpulab::timed_launches("TiledStep"))
            grid2d_grading::expect_timed_launch_configured_as(seen, timed, launcher_name(kernel));
        for (const auto& launch : launches) {
            const double threads = double(launch.block.x) * launch.block.y * launch.block.z;
            GPULAB_EXPECT(double(launch.shared_bytes()) >= per_thread * sizeof(float) * threads)
                << "launch_step_tiled launched " << launch.describe() << ": "
                << (launch.shared_bytes() == 0
                        ? "its kernel uses no shared memory at all. "
                        : "that is less shared memory than one float per thread of the block. ")
                << "The tiled kernel must copy its tile (the block's cells plus a one-cell halo) into a __shared__ "
                   "array, so it needs at least one float of shared memory per thread. (Speed cannot show this: on "
                   "recent GPUs the caches make the naive kernel at least as fast.)";
        }
    } else {
        gpulab::record_figure(described, "0 B shared");
        for (const auto& launch : launches)
            GPULAB_EXPECT(launch.shared_bytes() == 0)
                << "launch_step_naive launched " << launch.describe()
                << ": the naive kernel should read its neighbours straight from global memory, with no shared "
                   "memory. It is the baseline the tiled kernel is compared with.";
    }
}

namespace {

// How the timed launch's buffers are drawn (step_checks.cpp's registration): a launch counted in its place too.
std::vector<gpulab::BufferDraw> timed_draws() {
    const std::vector<gpulab::GeometryCheck> timed = gpulab::timed_launches("TiledStep");
    return timed.empty() ? std::vector<gpulab::BufferDraw>{} : timed.front().draws;
}

// Technique.SharedMemoryTile's launch of the tiled kernel: the technique size, its call and buffers.
gpulab::GeometryCheck structure_launch() {
    const Json& spec = section("technique");
    const Grid g{spec.at("nx").get<int>(), spec.at("ny").get<int>()};
    const float r = 0.2f;
    return {"Technique", "SharedMemoryTile", size_name(g),
            std::string(launcher_name(kTiledKernel)) + "(nx=" + std::to_string(g.nx) + ", ny=" + std::to_string(g.ny) + ")",
            {g.cells() * sizeof(float), g.cells() * sizeof(float)}, [g, r](const std::vector<void*>& b) {
                student().launch_step_tiled(static_cast<float*>(b[0]), static_cast<float*>(b[1]), g.nx, g.ny, r);
            }, timed_draws()};
}

}  // namespace

// A kernel that computes from its tile reads each cell once plus its share of the halo (1.31 times with 32 x 8
// blocks); the naive stencil reads 5. Counted in bytes (4 per float read) on small grids, every block, and on the
// launch Speed.TiledThroughput times, a sample of its blocks. And it reads its tile: about 3.8 reads per value
// staged there (5 per cell), where a kernel that fills a tile and computes from registers reads none.
void check_computes_from_shared_tile() {
    const Json& spec = gpulab::config_at(section("technique"), "reads");
    const gpulab::Tolerance tol{section("step").at("rel_tol"), section("step").at("abs_tol")};
    const float r = 0.2f;
    std::vector<Grid> grids = grids_of(spec.at("sizes"));
    const std::vector<int> drawn = gpulab::random_size_for_run(spec.at("random"));  // and one nobody can predict
    grids.push_back({drawn[0], drawn[1]});
    grid2d_grading::TechniqueRuns runs;
    runs.shared_bar = gpulab::shared_reads_bar(section("technique"));
    for (const Grid& g : grids)
        runs.small.push_back([g, r, tol, bar = runs.shared_bar] {
            auto rng = gpulab::Rng::for_current_test();
            const std::vector<float> in = random_field(rng, g);
            GuardedDeviceArray<float> d_in(g.cells()), d_out(g.cells());
            d_in.upload(in);
            grid2d_grading::CountedRun run;
            run.call = "launch_step_tiled(nx=" + std::to_string(g.nx) + ", ny=" + std::to_string(g.ny) + ")";
            run.size = size_name(g);
            run.nx = g.nx, run.ny = g.ny;
            run.output_bytes = double(g.nx) * g.ny * sizeof(float);
            gpulab::LaunchRecorder recorder;  // CPU execution mode: the launch's grid and configuration
            run.count = gpulab::count_device_accesses(
                {{d_in.data(), g.cells() * sizeof(float)}, {d_out.data(), g.cells() * sizeof(float)}}, [&] {
                    student().launch_step_tiled(d_in.data(), d_out.data(), g.nx, g.ny, r);
                    gpulab::check_student_launch(run.call);
                });
            run.launches = recorder.launches();
            run.right = run.count.available &&
                        gpulab::compare(interior_of(d_out.download(), g), expected_interior(in, g, r), interior_shape(g), tol).ok();
            if (run.right)  // its shared memory, in a few of its blocks (a second run: the output is checked)
                run.shared = gpulab::count_shared_sample(
                    [&] { student().launch_step_tiled(d_in.data(), d_out.data(), g.nx, g.ny, r); }, bar, run.count.launches);
            return run;
        });
    const int N = section("speed").at("N");
    for (const gpulab::GeometryCheck& timed : gpulab::timed_launches("TiledStep"))
        runs.timed.push_back({timed, "", N, N, double(N) * N});
    GPULAB_ASSERT(!runs.timed.empty()) << "grader error: no timed launch of the tiled kernel is registered";
    runs.timed_options.blocks = spec.at("timed_blocks");
    const gpulab::GeometryCheck structure = structure_launch();
    gpulab::KernelConfiguration config = grid2d_grading::launch_configuration(structure);
    config.where = structure.call + " (Technique.SharedMemoryTile's launch)";
    runs.structure.push_back({"", config});
    grid2d_grading::check_reads_per_output(grid2d_grading::tiled_stencil_of(section("technique").at("stencil")),
                                           spec.at("max_reads_per_cell"), runs);
}

}  // namespace heat_2d_grading
