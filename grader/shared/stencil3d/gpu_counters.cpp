// Technique.SameWorkOnGpu for labs 04-06: the timed launches of the kernel the lab teaches (its last stability
// kernel: tiled, coarsened, register-tiled; float and double at 512^3, the ones its speed test times) do on the GPU
// the work CPU execution mode counted. Run in CPU execution mode ("run_in": "cpu"): CPU execution mode's count of
// each timed launch (timed_technique.h, the sample lab.json technique.reads.timed gives) in input reads per interior
// cell, against the GPU's counters of the same launch from one ncu run of the lab's GPU grader
// (gpulab/gpu_profile.h). A kernel whose body takes another path on the GPU (a branch on __CUDA_ARCH__, on its
// size, on a mode argument) reads several times more there and fails. Where the counters cannot be read (no GPU,
// no ncu, ERR_NVGPUCTRPERM) it is "not run", and the counted technique test's verdict stands.
#include "timed_technique.h"

#include "gpulab/gpu_profile.h"
#include "gpulab/grader_test.h"
#include "gpulab/read_counter.h"

namespace stencil3d_grading {
namespace {

Technique taught_technique() {
    const std::string name = section("stability").at("kernels").back();
    for (int k = 0; k < kTechniques; ++k)
        if (name == technique_name(Technique(k))) return Technique(k);
    throw std::runtime_error("lab.json names an unknown stencil kernel: " + name);
}

TEST(Technique, SameWorkOnGpu) {
    GPULAB_REQUIRE_DEVICE();
    GPULAB_REQUIRE_READ_COUNTER();
    GPULAB_REQUIRE_GPU_COUNTERS();
    const Technique t = taught_technique();
    for (Precision p : {Precision::f32, Precision::f64}) {
        for (const gpulab::GeometryCheck& launch : timed_launches_of(t, p)) {
            const TimedReads counted = count_timed_reads(t, launch);
            if (!counted.why.empty()) GTEST_SKIP() << launch.call << ": not counted in CPU execution mode (" << counted.why << ")";
            GPULAB_ASSERT(counted.per_cell >= 0) << counted.where << " wrote nothing in the blocks counted.";
            testing::Test::RecordProperty("cpu_count_" + counted.size, counted.where);
            gpulab::GpuCounterAgreement how;
            how.kernel = std::string("your ") + technique_name(t) + " kernel";
            how.element = "input";
            how.per = "cell";
            how.outputs = double(counted.g.interior_cells());
            how.element_bytes = p == Precision::f64 ? 8 : 4;
            const gpulab::GpuCounterVerdict v =
                gpulab::check_gpu_counters_agree(launch.suite, launch.instance, counted.per_cell, how);
            if (!v.ran) return;  // skipped, with the reason
        }
    }
}

}  // namespace
}  // namespace stencil3d_grading
