#include <cuda_runtime.h>
#include "kernels.h"
#include "stencil1d.cuh"

// Same stencil with the tile in dynamic shared memory, any block size.
__global__ void stencil1d_dynamic_kernel(const float* in, float* out, int n, float cl, float cc, float cr) {
  extern __shared__ float s[];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + 1;
  s[l] = g < n ? in[g] : 0.0f;
  if (threadIdx.x == 0) s[0] = g > 0 && g - 1 < n ? in[g - 1] : 0.0f;
  if (threadIdx.x == blockDim.x - 1) s[blockDim.x + 1] = g + 1 < n ? in[g + 1] : 0.0f;
  __syncthreads();
  if (g > 0 && g < n - 1) out[g] = cl * s[l - 1] + cc * s[l] + cr * s[l + 1];
}

cudaError_t stencil1d_tiled(const float* in, float* out, int n, float cl, float cc, float cr) {
  stencil1d_tiled_kernel<<<(n + S1_BLOCK - 1) / S1_BLOCK, S1_BLOCK>>>(in, out, n, cl, cc, cr);
  return cudaGetLastError();
}

cudaError_t stencil1d_dynamic(const float* in, float* out, int n, float cl, float cc, float cr, int block,
                              cudaStream_t stream) {
  size_t shmem = (block + 2) * sizeof(float);
  stencil1d_dynamic_kernel<<<(n + block - 1) / block, block, shmem, stream>>>(in, out, n, cl, cc,
                                                                              cr);
  return cudaGetLastError();
}
