// The macros nvcc defines in both its passes (__CUDACC__, __NVCC__, its version, __CUDA_ARCH_LIST__...) read in
// CPU execution mode as under nvcc, in kernels and host code alike (issue 34, item 3: gpulab_cpu/prelude.h).
#include "kernels.h"

__device__ int nvcc_from_device_function() {
#if defined(__NVCC__) && defined(__CUDACC_VER_MAJOR__)
  return __CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__;
#else
  return -1;
#endif
}

__global__ void cuda_macros_kernel(int* out, int host_side) {
#ifdef __CUDACC__
  out[0] = 1;
#else
  out[0] = 2;
#endif
#ifndef __NVCC__
  out[1] = 2;
#else
  out[1] = 1;
#endif
  out[2] = nvcc_from_device_function();
#ifdef __CUDA_ARCH_LIST__
  out[3] = __CUDA_ARCH_LIST__;
#else
  out[3] = -1;
#endif
#if defined(__CUDA_API_VER_MAJOR__) && defined(__CUDART_API_VERSION)
  out[4] = __CUDART_API_VERSION;
#else
  out[4] = -1;
#endif
  out[5] = host_side;
}

cudaError_t cuda_macros_values(int* out) {
#if defined(__CUDACC__)
  const int host_side = 1;  // nvcc's host pass defines __CUDACC__ too
#else
  const int host_side = 2;
#endif
  cuda_macros_kernel<<<1, 1>>>(out, host_side);
  return cudaGetLastError();
}
