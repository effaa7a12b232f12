// __CUDA_ARCH__ inside kernels, __device__ functions and lambdas in them reads as nvcc's device pass sees
// it (issue 34, item 3): a body that takes one path on the GPU and another elsewhere takes the GPU's here too.
#include "kernels.h"

// __CUDA_ARCH__ inside kernels and __device__ functions reads as nvcc's device pass sees it (issue 34).
__device__ int arch_from_device_function() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return 10;
#else
  return 20;
#endif
}
__global__ void cuda_arch_kernel(int* out) {
#ifdef __CUDA_ARCH__
  out[0] = 1;
#else
  out[0] = 2;
#endif
#ifndef __CUDA_ARCH__
  out[1] = 2;
#else
  out[1] = __CUDA_ARCH__;
#endif
  out[2] = arch_from_device_function();
  auto lambda = [] {
#ifdef __CUDA_ARCH__
    return 1;
#else
    return 2;
#endif
  };
  out[3] = lambda();
}
cudaError_t cuda_arch_values(int* out) {
  cuda_arch_kernel<<<1, 1>>>(out);
  return cudaGetLastError();
}
