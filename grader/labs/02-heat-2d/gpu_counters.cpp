// Technique.SameWorkOnGpu: the tiled kernel's timed launch (8192 x 8192, the one Speed.TiledThroughput times) does
// on the GPU the work CPU execution mode counted. Run in CPU execution mode ("run_in": "cpu"): it counts the timed
// launch there (a sample of its blocks, bytes of `in` and `out` read, and of shared memory), then reads the GPU's counters of the same
// launch from one ncu run of the lab's GPU grader (gpulab/gpu_profile.h) and compares the two. A kernel whose body
// takes another path on the GPU (a branch on __CUDA_ARCH__, on its size, on a mode argument) reads several times
// more there and fails. Where the counters cannot be read (no GPU, no ncu, ERR_NVGPUCTRPERM) it is "not run", and
// Technique.ComputesFromSharedTile's counted verdict stands.
#include "square_grading.h"

#include "gpulab/format.h"
#include "gpulab/gpu_profile.h"
#include "gpulab/grader_test.h"
#include "gpulab/read_counter.h"
#include "gpulab/timed_launch_count.h"

#include <limits>

namespace heat_2d_grading {
namespace {

void check_same_work_on_gpu() {
    const std::vector<gpulab::GeometryCheck> timed = gpulab::timed_launches("TiledStep");
    GPULAB_ASSERT(!timed.empty()) << "grader error: no timed launch of the tiled kernel is registered";
    for (const gpulab::GeometryCheck& launch : timed) {
        gpulab::TimedCountOptions options;
        options.shared.on = true;  // shared memory too: the tile's reads
        const gpulab::TimedLaunchCount counted = gpulab::count_timed_launch(launch, options);
        if (!counted.count.available) GTEST_SKIP() << counted.count.why;
        const int N = section("speed").at("N");
        const double outputs = double(N - 2) * (N - 2);  // interior cells
        // The sample's reads of every buffer per cell it wrote (4 bytes of `out` each): elements read per cell.
        double bytes = 0;
        for (std::size_t b = 0; b < launch.buffer_bytes.size(); ++b) bytes += counted.bytes_read(b);
        const double written = counted.bytes_written(1);
        const double cpu = written > 0 ? bytes / written : std::numeric_limits<double>::quiet_NaN();
        testing::Test::RecordProperty("cpu_count", counted.describe() + ", " + gpulab::fixed(counted.seconds, 2) + " s");
        gpulab::GpuCounterAgreement how;
        how.kernel = "your tiled kernel";
        how.element = "input";
        how.per = "cell";
        how.outputs = outputs;
        if (counted.count.shared.counted && written > 0) {
            how.cpu_shared_elements_read_per_output = double(counted.count.shared.bytes_read) / written;
            testing::Test::RecordProperty("cpu_shared_elements_read_per_output",
                                          gpulab::fixed(how.cpu_shared_elements_read_per_output, 3));
        }
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
}  // namespace heat_2d_grading
