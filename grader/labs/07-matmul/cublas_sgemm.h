// cuBLAS SGEMM, the bar lab 07's kernels are measured beside: the grader's, never the student's (a
// student's code may not call cuBLAS). Strict FP32: the math mode is set to CUBLAS_DEFAULT_MATH
// explicitly, which keeps SGEMM off TF32 tensor cores (whose 10-bit mantissas would not pass the lab's
// own correctness tolerance).
#pragma once

#include "gpulab/timed_work.h"

#include <string>

namespace matmul_grading {

class CublasSgemm {
public:
    // Throws std::runtime_error saying why where there is no cuBLAS (CPU execution mode) or it fails.
    CublasSgemm();
    ~CublasSgemm();
    CublasSgemm(const CublasSgemm&) = delete;
    CublasSgemm& operator=(const CublasSgemm&) = delete;

    // C = A * B, row-major, on the default stream, like the students' launches.
    void multiply(const float* d_a, const float* d_b, float* d_c, int m, int n, int k);
    static const char* math_mode();  // "CUBLAS_DEFAULT_MATH (FP32, no TF32)"

private:
    void* handle_ = nullptr;
};

// The GPU's FP32 peak: gpulab::fp32_peak_tflops() (timed_work.h), also the floor of every timed product.
using gpulab::fp32_peak_tflops;

}  // namespace matmul_grading
