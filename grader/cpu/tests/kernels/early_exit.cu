// Correct on a GPU since compute capability 7.0: the threads past the end of the array return before
// __syncthreads(), and the barrier waits only for the threads that have not exited. Every thread that
// loads part of the tile (its own cell and, on the tile's edges, the halo beyond) reaches the barrier.
#include "kernels.h"

#define EE_BLOCK 64

__global__ void early_exit_stencil_kernel(const float* in, float* out, int n, float cl, float cc, float cr) {
  __shared__ float s[EE_BLOCK + 2];
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;  // no cell: gone before the barrier
  const int l = threadIdx.x + 1;
  s[l] = in[g];
  if (threadIdx.x == 0 && g > 0) s[0] = in[g - 1];
  if ((threadIdx.x == EE_BLOCK - 1 || g == n - 1) && g + 1 < n) s[l + 1] = in[g + 1];
  __syncthreads();
  if (g > 0 && g < n - 1) out[g] = cl * s[l - 1] + cc * s[l] + cr * s[l + 1];
}

cudaError_t early_exit_stencil(const float* in, float* out, int n, float cl, float cc, float cr) {
  early_exit_stencil_kernel<<<(n + EE_BLOCK - 1) / EE_BLOCK, EE_BLOCK>>>(in, out, n, cl, cc, cr);
  return cudaGetLastError();
}

// __syncthreads_count / _and / _or count only the threads still running: 40 of a 64-thread block stay,
// all with predicate 1. Writes the three results for each block.
__global__ void early_exit_predicates_kernel(int* result) {
  if (threadIdx.x >= 40) return;
  const int count = __syncthreads_count(1);
  const int all = __syncthreads_and(1);
  const int any = __syncthreads_or(threadIdx.x == 7);
  if (threadIdx.x == 0) {
    result[3 * blockIdx.x + 0] = count;
    result[3 * blockIdx.x + 1] = all;
    result[3 * blockIdx.x + 2] = any;
  }
}

cudaError_t early_exit_predicates(int* result) {
  early_exit_predicates_kernel<<<2, 64>>>(result);
  return cudaGetLastError();
}
