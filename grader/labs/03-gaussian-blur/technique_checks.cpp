#include "technique_checks.h"

#include "blur_grading.h"
#include "oracle.h"

#include "tile_reads.h"

#include "gpulab/cuda_check.h"
#include "gpulab/grader_test.h"
#include "gpulab/launch_geometry.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/random_size.h"
#include "gpulab/read_counter.h"

#include <algorithm>

namespace gaussian_blur_grading {

using gpulab::GuardedDeviceArray;

void check_tiled_uses_shared_tile() {
    const Json& spec = section("technique");
    const int w = spec.at("width"), h = spec.at("height");
    auto engine = engine_for_current_test();
    std::string figure;
    for (int c : spec.at("channels")) {
        const Bytes in = random_bytes(engine, std::size_t(w) * h * c);
        GuardedDeviceArray<std::uint8_t> d_in(in.size()), d_out(in.size());
        d_in.upload(in);
        std::vector<gpulab::RecordedLaunch> launches;
        {
            gpulab::LaunchRecorder recorder;  // one at a time: closed before the timed launch is recorded below
            student().launch_blur_tiled(d_in.data(), d_out.data(), w, h, c);
            gpulab::check_student_launch(call_text(Kernel::tiled, w, h, c));
            launches = recorder.launches();
        }
        GPULAB_ASSERT(!launches.empty()) << call_text(Kernel::tiled, w, h, c) << " launched no kernel.";
        // The launch that covers the image: the one with the most blocks.
        const gpulab::RecordedLaunch& main = *grid2d_grading::main_launch(launches);
        for (const auto& l : launches) testing::Test::RecordProperty("student_launch_c" + std::to_string(c), l.describe());
        // One block computes one output tile: the image divided by the grid.
        const int tile_w = int((w + main.grid.x - 1) / main.grid.x), tile_h = int((h + main.grid.y - 1) / main.grid.y);
        const std::size_t needed = std::size_t(tile_w + 2) * (tile_h + 2) * c;
        const std::size_t shared = main.shared_bytes();
        figure = std::to_string(shared) + " B shared for a " + std::to_string(tile_w) + "x" + std::to_string(tile_h) +
                 " tile, " + std::to_string(c) + " ch";
        const std::string where = call_text(Kernel::tiled, w, h, c) + " launched " + main.describe() + ": ";
        // The configuration judged here must be the one the speed test times (a dry run of that launch).
        if (c == section("speed").at("channels").get<int>())
            for (const gpulab::GeometryCheck& timed : gpulab::timed_launches("Tiled"))
                grid2d_grading::expect_timed_launch_configured_as(
                    gpulab::configuration_of(launches, call_text(Kernel::tiled, w, h, c)), timed, "launch_blur_tiled");
        GPULAB_EXPECT(shared > 0) << where << "the kernel uses no shared memory at all. The tiled kernel must copy "
                                  << "its tile plus halo into a __shared__ array and compute from there.";
        GPULAB_EXPECT(shared == 0 || shared >= needed)
            << where << "one block computes a " << tile_w << "x" << tile_h << " tile of the output (the image "
            << "divided by your grid), so its input is (" << tile_w << "+2)x(" << tile_h << "+2) pixels of " << c
            << " channels = " << needed << " bytes, but the kernel has only " << shared << " bytes of shared memory "
            << "(static + dynamic). Does the tile hold the halo and every channel? (One block per tile: a grid-stride "
            << "loop makes the grader's tile estimate too big.)";
    }
    gpulab::record_figure(figure, ">= (tile+2)^2 x channels bytes");
}

namespace {

// Launches are compared for one configuration per channel count: the shared tile holds every channel, so its
// bytes follow them.
std::string group_of(int channels) { return std::to_string(channels) + (channels == 1 ? " channel" : " channels"); }

// Technique.TiledUsesSharedTile's launch of the tiled kernel with `c` channels: its size, call and buffers.
gpulab::GeometryCheck structure_launch(int c) {
    const Json& spec = section("technique");
    const int w = spec.at("width"), h = spec.at("height");
    const std::size_t bytes = std::size_t(w) * h * c;
    return {"Technique", "TiledUsesSharedTile", size_name({w, h, c}), call_text(Kernel::tiled, w, h, c), {bytes, bytes},
            [w, h, c](const std::vector<void*>& b) {
                student().launch_blur_tiled(static_cast<std::uint8_t*>(b[0]), static_cast<std::uint8_t*>(b[1]), w, h, c);
            }, {gpulab::BufferDraw::bytes(), gpulab::BufferDraw::output_like(gpulab::BufferDraw::bytes())}};  // as timed
}

}  // namespace

// A kernel that computes from its tile reads each input byte once plus its share of the halo (about 1.3 times
// with 16 x 16 blocks); the naive kernel 9 times. Counted in bytes (a pixel's channels may be one load or three)
// on small images, every block, and on the launch Speed.TiledThroughput times, a sample of its blocks. And it reads
// its tile: about 7 reads per value staged there, where a kernel that fills a tile and computes from registers
// reads none.
void check_computes_from_shared_tile() {
    const Json& spec = gpulab::config_at(section("technique"), "reads");
    auto engine = engine_for_current_test();
    std::vector<ImageSize> sizes = sizes_times_channels(spec, "sizes");
    const std::vector<int> drawn = gpulab::random_size_for_run(spec.at("random"));  // and one nobody can predict
    sizes.push_back({drawn[0], drawn[1], drawn[2]});
    grid2d_grading::TechniqueRuns runs;
    runs.shared_bar = gpulab::shared_reads_bar(section("technique"));
    for (const ImageSize& s : sizes)
        runs.small.push_back([s, &engine, bar = runs.shared_bar] {
            const Bytes in = random_bytes(engine, std::size_t(s.w) * s.h * s.c);
            GuardedDeviceArray<std::uint8_t> d_in(in.size()), d_out(in.size());
            d_in.upload(in);
            grid2d_grading::CountedRun run;
            run.call = call_text(Kernel::tiled, s.w, s.h, s.c);
            run.size = size_name(s);
            run.group = group_of(s.c);
            run.nx = s.w, run.ny = s.h;
            run.output_bytes = double(in.size());
            gpulab::LaunchRecorder recorder;  // CPU execution mode: the launch's grid and configuration
            run.count = gpulab::count_device_accesses({{d_in.data(), in.size()}, {d_out.data(), in.size()}}, [&] {
                student().launch_blur_tiled(d_in.data(), d_out.data(), s.w, s.h, s.c);
                gpulab::check_student_launch(run.call);
            });
            run.launches = recorder.launches();
            run.right = run.count.available && d_out.download() == oracle::blur(in, s.w, s.h, s.c);
            if (run.right)  // its shared memory, in a few of its blocks (a second run: the output is checked)
                run.shared = gpulab::count_shared_sample(
                    [&] { student().launch_blur_tiled(d_in.data(), d_out.data(), s.w, s.h, s.c); }, bar,
                    run.count.launches);
            return run;
        });
    const Json& speed = section("speed");
    const int timed_channels = speed.at("channels");
    for (const gpulab::GeometryCheck& timed : gpulab::timed_launches("Tiled"))
        runs.timed.push_back({timed, group_of(timed_channels), speed.at("width").get<int>(), speed.at("height").get<int>(),
                              speed.at("width").get<double>() * speed.at("height").get<int>() * timed_channels});
    GPULAB_ASSERT(!runs.timed.empty()) << "grader error: no timed launch of the tiled kernel is registered";
    runs.timed_options.blocks = spec.at("timed_blocks");
    for (int c : section("technique").at("channels")) {
        const gpulab::GeometryCheck structure = structure_launch(c);
        gpulab::KernelConfiguration config = grid2d_grading::launch_configuration(structure);
        config.where = structure.call + " (Technique.TiledUsesSharedTile's launch)";
        runs.structure.push_back({group_of(c), config});
    }
    grid2d_grading::check_reads_per_output(grid2d_grading::tiled_stencil_of(section("technique").at("stencil")),
                                           spec.at("max_reads_per_byte"), runs);
}

}  // namespace gaussian_blur_grading
