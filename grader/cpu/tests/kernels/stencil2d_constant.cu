// 2D 5-point stencil: 16x16 output tile in shared memory with a one-cell halo loaded by strided loops,
// coefficients in __constant__ memory set with cudaMemcpyToSymbol.
#include "kernels.h"

#define T2 16
__constant__ float c_coef[5];  // centre, west, east, north, south

__global__ void stencil2d_kernel(const float* in, float* out, int w, int h) {
  __shared__ float tile[T2 + 2][T2 + 2];
  int x0 = blockIdx.x * T2 - 1, y0 = blockIdx.y * T2 - 1;
  for (int ty = threadIdx.y; ty < T2 + 2; ty += blockDim.y)
    for (int tx = threadIdx.x; tx < T2 + 2; tx += blockDim.x) {
      int x = x0 + tx, y = y0 + ty;
      tile[ty][tx] = (x >= 0 && x < w && y >= 0 && y < h) ? in[y * w + x] : 0.0f;
    }
  __syncthreads();
  int x = blockIdx.x * T2 + threadIdx.x, y = blockIdx.y * T2 + threadIdx.y;
  if (x > 0 && x < w - 1 && y > 0 && y < h - 1) {
    int lx = threadIdx.x + 1, ly = threadIdx.y + 1;
    out[y * w + x] = c_coef[0] * tile[ly][lx] + c_coef[1] * tile[ly][lx - 1] + c_coef[2] * tile[ly][lx + 1] +
                     c_coef[3] * tile[ly - 1][lx] + c_coef[4] * tile[ly + 1][lx];
  }
}

cudaError_t stencil2d_constant_set(const float c[5]) { return cudaMemcpyToSymbol(c_coef, c, 5 * sizeof(float)); }

cudaError_t stencil2d_constant(const float* in, float* out, int w, int h) {
  dim3 block(T2, T2);
  dim3 grid((w + T2 - 1) / T2, (h + T2 - 1) / T2);
  stencil2d_kernel<<<grid, block>>>(in, out, w, h);
  return cudaGetLastError();
}
