// The textbook 3D 7-point stencils (tiled, and coarsened along z with three shared planes), unmodified
// apart from taking the coefficients as an array.
#include "kernels.h"

#define IN_TILE_DIM 8
#define OUT_TILE_DIM ((IN_TILE_DIM)-2)
#define C_TILE_IN 16
#define C_TILE_OUT ((C_TILE_IN)-2)

struct Coef {
  float c0, c1, c2, c3, c4, c5, c6;
};

__global__ void stencil_kernel(const float* in, float* out, unsigned int N, Coef c) {
  __shared__ float tile[IN_TILE_DIM][IN_TILE_DIM][IN_TILE_DIM];
  int i = blockIdx.z * OUT_TILE_DIM + threadIdx.z - 1;
  int j = blockIdx.y * OUT_TILE_DIM + threadIdx.y - 1;
  int k = blockIdx.x * OUT_TILE_DIM + threadIdx.x - 1;
  int n = (int)N;
  if (i >= 0 && i < n && j >= 0 && j < n && k >= 0 && k < n) {
    tile[threadIdx.z][threadIdx.y][threadIdx.x] = in[i * n * n + j * n + k];
  }
  __syncthreads();
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1 && k >= 1 && k < n - 1) {
    if (threadIdx.z >= 1 && threadIdx.z < IN_TILE_DIM - 1 && threadIdx.y >= 1 && threadIdx.y < IN_TILE_DIM - 1 &&
        threadIdx.x >= 1 && threadIdx.x < IN_TILE_DIM - 1) {
      out[i * n * n + j * n + k] = c.c0 * tile[threadIdx.z][threadIdx.y][threadIdx.x] +
                                   c.c1 * tile[threadIdx.z][threadIdx.y][threadIdx.x - 1] +
                                   c.c2 * tile[threadIdx.z][threadIdx.y][threadIdx.x + 1] +
                                   c.c3 * tile[threadIdx.z][threadIdx.y - 1][threadIdx.x] +
                                   c.c4 * tile[threadIdx.z][threadIdx.y + 1][threadIdx.x] +
                                   c.c5 * tile[threadIdx.z - 1][threadIdx.y][threadIdx.x] +
                                   c.c6 * tile[threadIdx.z + 1][threadIdx.y][threadIdx.x];
    }
  }
}

__global__ void stencil_coarsened_kernel(const float* in, float* out, unsigned int N, Coef c) {
  int n = (int)N;
  int iStart = blockIdx.z * C_TILE_OUT;
  int j = blockIdx.y * C_TILE_OUT + threadIdx.y - 1;
  int k = blockIdx.x * C_TILE_OUT + threadIdx.x - 1;
  __shared__ float inPrev_s[C_TILE_IN][C_TILE_IN];
  __shared__ float inCurr_s[C_TILE_IN][C_TILE_IN];
  __shared__ float inNext_s[C_TILE_IN][C_TILE_IN];
  if (iStart - 1 >= 0 && iStart - 1 < n && j >= 0 && j < n && k >= 0 && k < n) {
    inPrev_s[threadIdx.y][threadIdx.x] = in[(iStart - 1) * n * n + j * n + k];
  }
  if (iStart >= 0 && iStart < n && j >= 0 && j < n && k >= 0 && k < n) {
    inCurr_s[threadIdx.y][threadIdx.x] = in[iStart * n * n + j * n + k];
  }
  for (int i = iStart; i < iStart + C_TILE_OUT; i++) {
    if (i + 1 >= 0 && i + 1 < n && j >= 0 && j < n && k >= 0 && k < n) {
      inNext_s[threadIdx.y][threadIdx.x] = in[(i + 1) * n * n + j * n + k];
    }
    __syncthreads();
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1 && k >= 1 && k < n - 1) {
      if (threadIdx.y >= 1 && threadIdx.y < C_TILE_IN - 1 && threadIdx.x >= 1 && threadIdx.x < C_TILE_IN - 1) {
        out[i * n * n + j * n + k] = c.c0 * inCurr_s[threadIdx.y][threadIdx.x] +
                                     c.c1 * inCurr_s[threadIdx.y][threadIdx.x - 1] +
                                     c.c2 * inCurr_s[threadIdx.y][threadIdx.x + 1] +
                                     c.c3 * inCurr_s[threadIdx.y - 1][threadIdx.x] +
                                     c.c4 * inCurr_s[threadIdx.y + 1][threadIdx.x] +
                                     c.c5 * inPrev_s[threadIdx.y][threadIdx.x] +
                                     c.c6 * inNext_s[threadIdx.y][threadIdx.x];
      }
    }
    __syncthreads();
    inPrev_s[threadIdx.y][threadIdx.x] = inCurr_s[threadIdx.y][threadIdx.x];
    inCurr_s[threadIdx.y][threadIdx.x] = inNext_s[threadIdx.y][threadIdx.x];
  }
}

static Coef to_coef(const float c[7]) { return Coef{c[0], c[1], c[2], c[3], c[4], c[5], c[6]}; }

cudaError_t stencil3d_tiled(const float* in, float* out, unsigned n, const float c[7]) {
  unsigned b = (n + OUT_TILE_DIM - 1) / OUT_TILE_DIM;
  dim3 grid(b, b, b), block(IN_TILE_DIM, IN_TILE_DIM, IN_TILE_DIM);
  stencil_kernel<<<grid, block>>>(in, out, n, to_coef(c));
  return cudaGetLastError();
}

cudaError_t stencil3d_coarsened(const float* in, float* out, unsigned n, const float c[7]) {
  unsigned b = (n + C_TILE_OUT - 1) / C_TILE_OUT;
  dim3 grid(b, b, b), block(C_TILE_IN, C_TILE_IN, 1);
  stencil_coarsened_kernel<<<grid, block>>>(in, out, n, to_coef(c));
  return cudaGetLastError();
}
