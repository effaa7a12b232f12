// Lab 07's part of the sanitizer pass (gpulab/sanitizer_check.h): the four products and the transpose, each
// launched once at m = 45, n = 37, k = 50 (no tile divides them), on exactly sized buffers, for
// Sanitizer.NoErrors to run under compute-sanitizer.
#include "api.h"
#include "oracle.h"

#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/random.h"
#include "gpulab/sanitizer_check.h"

namespace {

const bool kSanitizerWorkload = gpulab::add_sanitizer_workload([] {
    const MatmulApi& api = gpulab::lab_api<MatmulApi>(gpulab::Role::student, "07-matmul");
    const int m = 45, n = 37, k = 50;
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> a = rng.uniform_floats(std::size_t(m) * k, -1.0f, 1.0f);
    const std::vector<float> b = rng.uniform_floats(std::size_t(k) * n, -1.0f, 1.0f);
    const std::vector<float> bt = matmul_oracle::transpose(b, k, n);
    const std::vector<double> c = matmul_oracle::multiply(a, b, m, n, k).c;
    gpulab::ExactDeviceArray<float> d_a(a), d_b(b);
    gpulab::Shape shape;
    shape.nx = std::size_t(n), shape.ny = std::size_t(m);
    gpulab::ExactDeviceArray<float> d_bt(std::size_t(n) * k, gpulab::kPoisonByte);
    api.transpose(d_b.data(), d_bt.data(), k, n);
    gpulab::check_student_launch("launch_transpose");
    gpulab::Shape transposed;
    transposed.nx = std::size_t(k), transposed.ny = std::size_t(n);
    gpulab::check_workload_output("launch_transpose", gpulab::compare(d_bt.download(), std::vector<double>(bt.begin(), bt.end()),
                                                                      transposed, {0, 0}));
    const gpulab::ExactDeviceArray<float> d_bt_exact(bt);  // the products on Bt read the oracle's, not the student's
    for (const auto& [name, launch, b_operand] :
         {std::tuple{"launch_matmul_naive", api.naive, d_b.data()}, std::tuple{"launch_matmul_tiled", api.tiled, d_b.data()},
          std::tuple{"launch_matmul_naive_bt", api.naive_bt, d_bt_exact.data()},
          std::tuple{"launch_matmul_tiled_bt", api.tiled_bt, d_bt_exact.data()}}) {
        gpulab::ExactDeviceArray<float> d_c(std::size_t(m) * n, gpulab::kPoisonByte);
        launch(d_a.data(), b_operand, d_c.data(), m, n, k);
        gpulab::check_student_launch(name);
        gpulab::check_workload_output(name, gpulab::compare(d_c.download(), c, shape, {1e-4, 1e-4}));
    }
});

}  // namespace
