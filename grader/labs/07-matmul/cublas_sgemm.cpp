#include "cublas_sgemm.h"

#include "gpulab/device_facts.h"

#include <stdexcept>

#ifndef GPULAB_CPU_MODE
#include <cublas_v2.h>
#endif

namespace matmul_grading {

#ifndef GPULAB_CPU_MODE

namespace {

void check(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusString(status));
}

}  // namespace

CublasSgemm::CublasSgemm() {
    cublasHandle_t handle = nullptr;
    check(cublasCreate(&handle), "cublasCreate");
    handle_ = handle;
    check(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    check(cublasSetStream(handle, nullptr), "cublasSetStream");
}

CublasSgemm::~CublasSgemm() {
    if (handle_) cublasDestroy(static_cast<cublasHandle_t>(handle_));
}

// cuBLAS is column-major: a row-major C = A * B is, read column-major, C^T = B^T * A^T, which is one
// SGEMM on the same pointers with the operands swapped and no transposes.
void CublasSgemm::multiply(const float* d_a, const float* d_b, float* d_c, int m, int n, int k) {
    const float one = 1.0f, zero = 0.0f;
    check(cublasSgemm(static_cast<cublasHandle_t>(handle_), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, d_b, n, d_a, k,
                      &zero, d_c, n),
          "cublasSgemm");
}

#else

CublasSgemm::CublasSgemm() {
    throw std::runtime_error("cuBLAS runs on a GPU only; this grader runs kernels in CPU execution mode");
}
CublasSgemm::~CublasSgemm() = default;
void CublasSgemm::multiply(const float*, const float*, float*, int, int, int) {}

#endif

const char* CublasSgemm::math_mode() { return "CUBLAS_DEFAULT_MATH (FP32, no TF32)"; }


}  // namespace matmul_grading
