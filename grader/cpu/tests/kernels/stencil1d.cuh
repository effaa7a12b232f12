// 1D 3-point stencil, shared-memory tile with a one-cell halo on each side. Kept in a header to prove that
// .cuh files are rewritten too.
#pragma once

#define S1_RADIUS 1
#define S1_BLOCK 256

__global__ void stencil1d_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, int n, float cl,
                                       float cc, float cr) {
  __shared__ float tile[S1_BLOCK + 2 * S1_RADIUS];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + S1_RADIUS;
  tile[l] = g < n ? in[g] : 0.0f;
  if (threadIdx.x < S1_RADIUS) {
    int left = g - S1_RADIUS;
    int right = g + S1_BLOCK;
    tile[l - S1_RADIUS] = left >= 0 && left < n ? in[left] : 0.0f;
    tile[l + S1_BLOCK] = right < n ? in[right] : 0.0f;
  }
  __syncthreads();
  if (g > 0 && g < n - 1) out[g] = cl * tile[l - 1] + cc * tile[l] + cr * tile[l + 1];
}
