// Technique.SameWorkOnGpu: both tiled kernels' timed launches (the ones Speed.TiledThroughput and
// Speed.TiledBtThroughput time) do on the GPU the work CPU execution mode counted. Run in CPU execution mode
// ("run_in": "cpu"): CPU execution mode's count of each timed launch (timed_technique.h: loads of A and B per
// multiply-add, exact on a part of the product; counted once per process, so Technique.ComputesFromSharedTiles'
// count is reused) times k gives the elements of A and B each element of C reads; the GPU's counters of the same
// launch (gpulab/gpu_profile.h: one ncu run of the lab's GPU grader) give the global bytes its threads loaded per
// element of C. A kernel whose body takes another path on the GPU (a branch on __CUDA_ARCH__, on its size, on a
// mode argument) loads several times more there and fails. Where the counters cannot be read (no GPU, no ncu,
// ERR_NVGPUCTRPERM) it is "not run", and Technique.ComputesFromSharedTiles' counted verdict stands.
#include "timed_technique.h"

#include "gpulab/gpu_profile.h"
#include "gpulab/grader_test.h"
#include "gpulab/read_counter.h"

#include <cmath>

namespace matmul_grading {
namespace {

TEST(Technique, SameWorkOnGpu) {
    GPULAB_REQUIRE_DEVICE();
    GPULAB_REQUIRE_READ_COUNTER();
    GPULAB_REQUIRE_GPU_COUNTERS();
    const unsigned long long blocks = section("technique").at("timed_blocks");
    for (Kernel kernel : {Kernel::tiled, Kernel::tiled_bt}) {
        for (const gpulab::GeometryCheck& launch : gpulab::timed_launches(kernel == Kernel::tiled ? "Tiled" : "TiledBt")) {
            const TimedReads t = count_timed_reads(kernel, launch, blocks);
            if (!t.available)
                GTEST_SKIP() << t.call << ": CPU execution mode could not count the launch (" << t.why
                             << "); Technique.ComputesFromSharedTiles says why.";
            const double n = std::round(std::sqrt(double(launch.buffer_bytes.at(0)) / sizeof(float)));  // N x N x N
            testing::Test::RecordProperty("cpu_count_" + launch.instance, t.describe());
            gpulab::GpuCounterAgreement how;
            how.kernel = std::string("your ") + kernel_name(kernel) + " kernel";
            how.element = "A and B";
            how.per = "element of C";
            how.outputs = n * n;
            const gpulab::GpuCounterVerdict v =
                gpulab::check_gpu_counters_agree(launch.suite, launch.instance, t.per_mad * n, how);
            if (!v.ran) return;  // skipped, with the reason
        }
    }
}

}  // namespace
}  // namespace matmul_grading
