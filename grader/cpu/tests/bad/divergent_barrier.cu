// PLANTED BUGS: barriers in divergent code.
#include "kernels.h"

// Only the first warp of a 64-thread block calls the first barrier; the second warp skips it and goes on
// to the next one. Threads waiting at two different __syncthreads() calls: must fail the launch.
__global__ void divergent_kernel(float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = (float)threadIdx.x;
  if (threadIdx.x < 32) __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] += 1.0f;
}

cudaError_t divergent_barrier(float* out) {
  divergent_kernel<<<2, 64>>>(out);
  return cudaGetLastError();
}

// The second warp skips the only barrier, reads what the first warp wrote before it, and exits. A GPU
// (cc >= 7.0) releases the first warp's barrier once the second warp has exited, so the launch succeeds,
// but the second warp's reads race with the first warp's writes: wrong values, not a launch failure.
__global__ void skipped_barrier_kernel(float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = (float)threadIdx.x;
  if (threadIdx.x < 32) __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x];
}

cudaError_t skipped_barrier(float* out) {
  skipped_barrier_kernel<<<2, 64>>>(out);
  return cudaGetLastError();
}
