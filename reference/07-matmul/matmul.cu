// Reference solution for lab 07 (matrix multiply). Same interface and file name as the starter.
#include "matmul.h"

namespace matmul {

// Naive kernels: 16 x 16 threads, threadIdx.x along the columns of C.
constexpr int kNaive = 16;
// Tiled kernels: 32 x 32 outputs per block, one per thread; tiles of 32 x 32 floats of A and of B.
constexpr int kTile = 32;
// Transpose: a 32 x 32 tile per block, moved by 32 x 8 threads (each copies four elements).
constexpr int kTransposeRows = 8;

int blocks_for(int size, int per_block) { return (size + per_block - 1) / per_block; }

__global__ void matmul_naive(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                             int n, int k) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    float sum = 0.0f;
    for (int e = 0; e < k; ++e) sum += a[size_t(row) * k + e] * b[size_t(e) * n + col];
    c[size_t(row) * n + col] = sum;
}

// B given as Bt (N x K): neighbouring threads (neighbouring columns j) read neighbouring rows of Bt, K
// floats apart, so a warp's 32 loads of one step land in 32 different memory segments.
__global__ void matmul_naive_bt(const float* __restrict__ a, const float* __restrict__ bt, float* __restrict__ c,
                                int m, int n, int k) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    float sum = 0.0f;
    for (int e = 0; e < k; ++e) sum += a[size_t(row) * k + e] * bt[size_t(col) * k + e];
    c[size_t(row) * n + col] = sum;
}

// Element (r, col) of a rows x cols row-major matrix, or 0 outside it: the zero padding that lets a
// tile stick out past the edge without changing the sum.
__device__ float at_or_zero(const float* matrix, int r, int col, int rows, int cols) {
    return r < rows && col < cols ? matrix[size_t(r) * cols + col] : 0.0f;
}

__global__ void matmul_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                             int n, int k) {
    __shared__ float a_tile[kTile][kTile];
    __shared__ float b_tile[kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty;
    const int col = blockIdx.x * kTile + tx;
    float sum = 0.0f;
    for (int k0 = 0; k0 < k; k0 += kTile) {
        a_tile[ty][tx] = at_or_zero(a, row, k0 + tx, m, k);
        b_tile[ty][tx] = at_or_zero(b, k0 + ty, col, k, n);
        __syncthreads();
        for (int e = 0; e < kTile; ++e) sum += a_tile[ty][e] * b_tile[e][tx];
        __syncthreads();
    }
    if (row < m && col < n) c[size_t(row) * n + col] = sum;
}

// The tile of B comes from Bt: thread (tx, ty) copies Bt(j0 + ty, k0 + tx), neighbouring threads reading
// neighbouring floats of one row of Bt (coalesced), so bt_tile[j][e] holds B(k0 + e, j0 + j). The
// multiply then reads bt_tile[tx][e]: a column of the tile, 32 threads 33 floats apart. Without the
// extra column they would be 32 floats apart, all in one shared-memory bank, and take turns.
__global__ void matmul_tiled_bt(const float* __restrict__ a, const float* __restrict__ bt, float* __restrict__ c,
                                int m, int n, int k) {
    __shared__ float a_tile[kTile][kTile];
    __shared__ float bt_tile[kTile][kTile + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty;
    const int col = blockIdx.x * kTile + tx;
    const int bt_row = blockIdx.x * kTile + ty;
    float sum = 0.0f;
    for (int k0 = 0; k0 < k; k0 += kTile) {
        a_tile[ty][tx] = at_or_zero(a, row, k0 + tx, m, k);
        bt_tile[ty][tx] = at_or_zero(bt, bt_row, k0 + tx, n, k);
        __syncthreads();
        for (int e = 0; e < kTile; ++e) sum += a_tile[ty][e] * bt_tile[tx][e];
        __syncthreads();
    }
    if (row < m && col < n) c[size_t(row) * n + col] = sum;
}

// Reads a 32 x 32 tile row by row (coalesced) and writes it out row by row of the transpose (coalesced
// again), turning it around in shared memory; the extra column keeps a column of the tile in 32 banks.
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    __shared__ float tile[kTile][kTile + 1];
    const int c0 = blockIdx.x * kTile, r0 = blockIdx.y * kTile;
    for (int y = threadIdx.y; y < kTile; y += blockDim.y) {
        const int r = r0 + y, col = c0 + threadIdx.x;
        if (r < rows && col < cols) tile[y][threadIdx.x] = in[size_t(r) * cols + col];
    }
    __syncthreads();
    for (int y = threadIdx.y; y < kTile; y += blockDim.y) {
        const int out_row = c0 + y, out_col = r0 + threadIdx.x;  // out is cols x rows
        if (out_row < cols && out_col < rows) out[size_t(out_row) * rows + out_col] = tile[threadIdx.x][y];
    }
}

void launch_matmul_naive(const float* d_a, const float* d_b, float* d_c, int m, int n, int k) {
    const dim3 block(kNaive, kNaive);
    const dim3 grid(blocks_for(n, kNaive), blocks_for(m, kNaive));
    matmul_naive<<<grid, block>>>(d_a, d_b, d_c, m, n, k);
}

void launch_matmul_tiled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k) {
    const dim3 block(kTile, kTile);
    const dim3 grid(blocks_for(n, kTile), blocks_for(m, kTile));
    matmul_tiled<<<grid, block>>>(d_a, d_b, d_c, m, n, k);
}

void launch_transpose(const float* d_in, float* d_out, int rows, int cols) {
    const dim3 block(kTile, kTransposeRows);
    const dim3 grid(blocks_for(cols, kTile), blocks_for(rows, kTile));
    transpose<<<grid, block>>>(d_in, d_out, rows, cols);
}

void launch_matmul_naive_bt(const float* d_a, const float* d_bt, float* d_c, int m, int n, int k) {
    const dim3 block(kNaive, kNaive);
    const dim3 grid(blocks_for(n, kNaive), blocks_for(m, kNaive));
    matmul_naive_bt<<<grid, block>>>(d_a, d_bt, d_c, m, n, k);
}

void launch_matmul_tiled_bt(const float* d_a, const float* d_bt, float* d_c, int m, int n, int k) {
    const dim3 block(kTile, kTile);
    const dim3 grid(blocks_for(n, kTile), blocks_for(m, kTile));
    matmul_tiled_bt<<<grid, block>>>(d_a, d_bt, d_c, m, n, k);
}

}  // namespace matmul
