// Tiled matrix multiply C = A (m x k) * B (k x n), tile size as a template parameter, in a namespace,
// launched over several lines: exercises the launch rewriter.
#include "kernels.h"

namespace mm {
template <int TILE>
__global__ void __launch_bounds__(TILE * TILE) tiled(const float* __restrict__ A, const float* __restrict__ B,
                                                     float* __restrict__ C, int m, int n, int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (k + TILE - 1) / TILE; ++t) {
    int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < m && ac < k) ? A[row * k + ac] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (br < k && col < n) ? B[br * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int e = 0; e < TILE; ++e) acc = fmaf(As[threadIdx.y][e], Bs[e][threadIdx.x], acc);
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = acc;
}
}  // namespace mm

cudaError_t matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k) {
  constexpr int kTile = 16;
  dim3 block(kTile, kTile);
  dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  mm::tiled<kTile>
      <<<grid,
         block>>>(a, b, c,
                  m, n, k);
  return cudaGetLastError();
}
