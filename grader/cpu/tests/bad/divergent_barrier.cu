// PLANTED BUG: a barrier inside divergent code; only the first warp of a 64-thread block reaches it.
#include "kernels.h"

__global__ void divergent_kernel(float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = (float)threadIdx.x;
  if (threadIdx.x < 32) __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x];
}

cudaError_t divergent_barrier(float* out) {
  divergent_kernel<<<2, 64>>>(out);
  return cudaGetLastError();
}
