#include "roofline.h"

#include "cublas_sgemm.h"
#include "timed_product.h"

#include "gpulab/cuda_check.h"
#include "gpulab/expert.h"
#include "gpulab/fresh_inputs.h"
#include "gpulab/gpu_profile.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/roofline.h"
#include "gpulab/speed_report.h"

#include <memory>

namespace matmul_grading {

namespace {

// The expert SGEMM in the GPU profile (gpulab/gpu_profile.h, Report.GpuProfile), beside the tiled kernel's timed launch
// at the roofline's size (cublas.size, one of the timed sizes): its contract is launch_matmul_tiled's (B not
// transposed), so TiledBt has none beside it.
const bool kExpertProfile = gpulab::set_expert_beside([] {
    return gpulab::TimedLaunchName{"Tiled", "N" + std::to_string(section("cublas").at("size").get<int>())};
});

}  // namespace

void report_roofline() {
    GPULAB_REQUIRE_GPU();
    const int n = section("cublas").at("size");
    const Shape s{n, n, n};
    const std::size_t elements = std::size_t(n) * n;
    gpulab::GuardedDeviceArray<float> a(elements), b(elements), bt(elements), c(elements), c_reference(elements);
    gpulab::fill_fresh(a.data(), elements, {3});
    gpulab::fill_fresh(b.data(), elements, {4});
    gpulab::fill_fresh(bt.data(), elements, {5});
    const gpulab::TimingOptions options = gpulab::timing_options_of(section("roofline"));
    const gpulab::Roofs roofs = gpulab::measure_roofs(elements * sizeof(float), options);
    const double flops = section("roofline").at("operations_per_multiply_add").get<double>() * s.multiply_adds(),
                 bytes = 4.0 * 3.0 * double(elements);
    std::vector<gpulab::RooflineKernel> kernels;
    for (Kernel kernel : {Kernel::naive, Kernel::tiled, Kernel::tiled_bt}) {
        float* operand = takes_bt(kernel) ? bt.data() : b.data();
        const MatmulLaunch mine = launcher(student(), kernel), theirs = launcher(reference(), kernel);
        auto work = std::make_shared<gpulab::TimedWork>(timed_product(kernel, s, {a.data(), operand, c.data()}));
        gpulab::add_student_and_reference(
            kernels, kernel_name(kernel), "fp32", flops, bytes, [&, mine, operand] { mine(a.data(), operand, c.data(), n, n, n); },
            [&, theirs, operand] { theirs(a.data(), operand, c_reference.data(), n, n, n); }, work);
    }
    std::string why;
    if (const auto* expert = gpulab::expert_api<MatmulExpertApi>("07-matmul", &why)) {
        const MatmulLaunch run = expert->sgemm;
        kernels.push_back({"expert", "expert", "fp32", flops, bytes, [&, run] { run(a.data(), b.data(), c.data(), n, n, n); },
                           std::make_shared<gpulab::TimedWork>(
                               timed_product(Kernel::tiled, s, {a.data(), b.data(), c.data()}, run, "expert::launch_sgemm"))});
    } else {
        kernels.push_back({"expert", "expert", "fp32", flops, bytes, {}, nullptr, why});
    }
    // cuBLAS is trusted like the reference (Report.CublasBar checks its output against the oracle).
    CublasSgemm cublas;
    kernels.push_back({"cuBLAS (FP32)", "library", "fp32", flops, bytes,
                       [&] { cublas.multiply(a.data(), b.data(), c_reference.data(), n, n, n); }});
    gpulab::publish_roofline(gpulab::measure_roofline(roofs, "C = A B, M = N = K = " + std::to_string(n), kernels, options),
                             "[lab 07]");
}

}  // namespace matmul_grading
