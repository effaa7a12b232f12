// PLANTED BUG: the textbook tiled 3D stencil with its __syncthreads() deleted. Threads read neighbours'
// tile cells that may not be loaded yet: must give wrong results on every run in CPU mode.
#include "kernels.h"

#define IN_TILE_DIM 8
#define OUT_TILE_DIM ((IN_TILE_DIM)-2)

__global__ void stencil_nosync_kernel(const float* in, float* out, unsigned int N, float c0, float c1, float c2,
                                      float c3, float c4, float c5, float c6) {
  __shared__ float tile[IN_TILE_DIM][IN_TILE_DIM][IN_TILE_DIM];
  int i = blockIdx.z * OUT_TILE_DIM + threadIdx.z - 1;
  int j = blockIdx.y * OUT_TILE_DIM + threadIdx.y - 1;
  int k = blockIdx.x * OUT_TILE_DIM + threadIdx.x - 1;
  int n = (int)N;
  if (i >= 0 && i < n && j >= 0 && j < n && k >= 0 && k < n) {
    tile[threadIdx.z][threadIdx.y][threadIdx.x] = in[i * n * n + j * n + k];
  }
  // (no __syncthreads() here)
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1 && k >= 1 && k < n - 1) {
    if (threadIdx.z >= 1 && threadIdx.z < IN_TILE_DIM - 1 && threadIdx.y >= 1 && threadIdx.y < IN_TILE_DIM - 1 &&
        threadIdx.x >= 1 && threadIdx.x < IN_TILE_DIM - 1) {
      out[i * n * n + j * n + k] = c0 * tile[threadIdx.z][threadIdx.y][threadIdx.x] +
                                   c1 * tile[threadIdx.z][threadIdx.y][threadIdx.x - 1] +
                                   c2 * tile[threadIdx.z][threadIdx.y][threadIdx.x + 1] +
                                   c3 * tile[threadIdx.z][threadIdx.y - 1][threadIdx.x] +
                                   c4 * tile[threadIdx.z][threadIdx.y + 1][threadIdx.x] +
                                   c5 * tile[threadIdx.z - 1][threadIdx.y][threadIdx.x] +
                                   c6 * tile[threadIdx.z + 1][threadIdx.y][threadIdx.x];
    }
  }
}

cudaError_t stencil3d_tiled_nosync(const float* in, float* out, unsigned n, const float c[7]) {
  unsigned b = (n + OUT_TILE_DIM - 1) / OUT_TILE_DIM;
  stencil_nosync_kernel<<<dim3(b, b, b), dim3(IN_TILE_DIM, IN_TILE_DIM, IN_TILE_DIM)>>>(in, out, n, c[0], c[1], c[2],
                                                                                          c[3], c[4], c[5], c[6]);
  return cudaGetLastError();
}
