// Technique.SameWorkOnGpu: the tiled blur's timed launch (8192 x 8192 RGB, the one Speed.TiledThroughput times) does
// on the GPU the work CPU execution mode counted. Run in CPU execution mode ("run_in": "cpu"): it counts the timed
// launch there (a sample of its blocks: bytes of the input read, of the output written, and of shared memory), then
// reads the GPU's counters of the same launch from one ncu run of the lab's GPU grader (gpulab/gpu_profile.h) and
// compares the two per output byte. A kernel whose body takes another path on the GPU (a branch on __CUDA_ARCH__,
// on its size, on a mode argument) reads several times more there and fails. Where the counters cannot be read (no
// GPU, no ncu, ERR_NVGPUCTRPERM) it is "not run", and Technique.ComputesFromSharedTile's counted verdict stands.
#include "blur_grading.h"

#include "gpulab/format.h"
#include "gpulab/gpu_profile.h"
#include "gpulab/grader_test.h"
#include "gpulab/read_counter.h"
#include "gpulab/timed_launch_count.h"

namespace gaussian_blur_grading {
namespace {

void check_same_work_on_gpu() {
    const std::vector<gpulab::GeometryCheck> timed = gpulab::timed_launches("Tiled");
    GPULAB_ASSERT(!timed.empty()) << "grader error: no timed launch of the tiled blur is registered";
    const Json& speed = section("speed");
    const double outputs = double(speed.at("width").get<int>()) * speed.at("height").get<int>() * speed.at("channels").get<int>();
    for (const gpulab::GeometryCheck& launch : timed) {
        gpulab::TimedCountOptions options;
        options.shared.on = true;  // shared memory too: the tile's reads
        const gpulab::TimedLaunchCount counted = gpulab::count_timed_launch(launch, options);
        if (!counted.count.available) GTEST_SKIP() << counted.count.why;
        const double written = counted.bytes_written(1);
        GPULAB_ASSERT(written > 0) << counted.describe() << " wrote nothing in the blocks counted.";
        const double cpu = counted.bytes_read(0) / written;  // bytes of the input per output byte
        testing::Test::RecordProperty("cpu_count", counted.describe() + ", " + gpulab::fixed(counted.seconds, 2) + " s");
        gpulab::GpuCounterAgreement how;
        how.kernel = "your tiled blur";
        how.element = "input";
        how.per = "output byte";
        how.outputs = outputs;
        how.element_bytes = 1;
        if (counted.count.shared.counted)
            how.cpu_shared_elements_read_per_output = double(counted.count.shared.bytes_read) / written;
        const gpulab::GpuCounterVerdict v = gpulab::check_gpu_counters_agree(launch.suite, launch.instance, cpu, how);
        if (!v.ran) return;  // skipped, with the reason
    }
}

TEST(Technique, SameWorkOnGpu) {
    GPULAB_REQUIRE_DEVICE();
    GPULAB_REQUIRE_READ_COUNTER();
    GPULAB_REQUIRE_GPU_COUNTERS();
    check_same_work_on_gpu();
}

}  // namespace
}  // namespace gaussian_blur_grading
