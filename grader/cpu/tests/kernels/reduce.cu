// Per-block sums with a file-scope static __shared__ array and a tree reduction (a barrier per level).
#include "kernels.h"

#define R_BLOCK 256
__shared__ float partial[R_BLOCK];

__global__ void block_sum_kernel(const float* in, float* out, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = g < n ? in[g] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

cudaError_t block_sums(const float* in, float* out, int n) {
  block_sum_kernel<<<(n + R_BLOCK - 1) / R_BLOCK, R_BLOCK>>>(in, out, n);
  return cudaGetLastError();
}
