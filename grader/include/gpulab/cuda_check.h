// One way to check CUDA calls in the grader: a failed call throws, so it fails the one test that
// made it (GoogleTest reports the exception) instead of aborting the whole run.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace gpulab {

class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t status, const std::string& what) : std::runtime_error(what), status_(status) {}
    cudaError_t status() const { return status_; }

private:
    cudaError_t status_;
};

// A sentence a student can act on for the errors their kernels cause most often.
std::string explain_cuda_error(cudaError_t status);

// Throws CudaError naming the call, the file and the line.
void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);

// True for errors that leave the CUDA context unusable for the rest of the process.
bool is_sticky_cuda_error(cudaError_t status);

}  // namespace gpulab

#define GPULAB_CUDA_CHECK(call)                                                       \
    do {                                                                              \
        const cudaError_t gpulab_status_ = (call);                                    \
        if (gpulab_status_ != cudaSuccess)                                            \
            ::gpulab::throw_cuda_error(gpulab_status_, #call, __FILE__, __LINE__);    \
    } while (0)

// For destructors: report nothing, never throw (the error resurfaces at the next checked call).
#define GPULAB_CUDA_CHECK_NOTHROW(call) static_cast<void>(call)

namespace gpulab {

// After student code launched kernels: throws CudaError naming `what` if the launch was rejected
// or the kernel failed while running.
void check_student_launch(const std::string& what);

}  // namespace gpulab
