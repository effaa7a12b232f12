// Lab 07: matrix multiply. This is the file you edit.
//
// Work through the TODO(lab-7) markers in order; labs/07-matmul/README.md explains each one.
// Check your progress at any time with:   make grade LAB=07-matmul
//
// C (M x N) = A (M x K) * B (K x N), all row-major floats: A(i, k) = a[i * K + k], B(k, j) = b[k * N + j],
// C(i, j) = c[i * N + j]. Index with size_t (or long long) where a product of two sizes can pass 2^31.
#include "matmul.h"

namespace matmul {

// TODO(lab-7) step 1: the naive kernel. One thread per element C(row, col).
//   - col from the x dimension (blockIdx.x * blockDim.x + threadIdx.x), row from y: neighbouring threads
//     of a warp then read neighbouring floats of a row of B (coalesced). Predict what happens if you
//     swap them, then try it: the grader's speed test will tell you.
//   - Threads outside C (row >= m or col >= n) write nothing: the grid is rounded up to whole blocks.
//   - sum over e = 0 .. k-1 of a[row * k + e] * b[e * n + col], in a float, then one write to c.
__global__ void matmul_naive(const float* a, const float* b, float* c, int m, int n, int k) {
}

// TODO(lab-7) step 2: the tiled kernel. A block computes a TILE x TILE tile of C, one element per thread.
//   - Declare two shared arrays, __shared__ float a_tile[TILE][TILE], b_tile[TILE][TILE] (TILE a
//     constexpr int: 16 or 32).
//   - Walk k in steps of TILE. In each step every thread copies ONE element of A's tile
//     (row, k0 + threadIdx.x) and ONE of B's tile (k0 + threadIdx.y, col) into shared memory, writing
//     0.0f where that element lies outside the matrix (past m, n or k): the zeros add nothing to the sum,
//     so sizes that are not multiples of TILE come out right. Then __syncthreads(), multiply the tiles
//     from shared memory (TILE multiply-adds), and __syncthreads() again before the next step overwrites
//     them.
//   - Only a thread inside C writes its sum. Every thread, inside C or not, takes part in the loads and
//     reaches both __syncthreads().
__global__ void matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k) {
}

// TODO(lab-7) step 3a: the transpose, out(c, r) = in(r, c); `in` is rows x cols, `out` is cols x rows.
//   A straightforward version (one thread per element) is correct; the fast one reads a tile of `in`
//   row by row into shared memory and writes it out row by row of `out`, so both sides are coalesced
//   (the README shows how, and why the tile needs one extra column).
__global__ void transpose(const float* in, float* out, int rows, int cols) {
}

// TODO(lab-7) step 3b: the naive kernel on Bt (N x K): B(e, col) is bt[col * k + e].
__global__ void matmul_naive_bt(const float* a, const float* bt, float* c, int m, int n, int k) {
}

// TODO(lab-7) step 3c: the tiled kernel on Bt. Load B's tile from Bt so that neighbouring threads read
//   neighbouring floats of a row of Bt (coalesced), and store it so the multiply can read B(k0 + e, col).
//   Measure it with and without one extra column in the shared array (README: bank conflicts).
__global__ void matmul_tiled_bt(const float* a, const float* bt, float* c, int m, int n, int k) {
}

void launch_matmul_naive(const float* d_a, const float* d_b, float* d_c, int m, int n, int k) {
    // TODO(lab-7) step 1b: a 2D block (e.g. 16 x 16 threads) and a 2D grid covering n columns (x) and
    // m rows (y), rounded up; launch matmul_naive.
}

void launch_matmul_tiled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k) {
    // TODO(lab-7) step 2b: block = TILE x TILE threads, one block per tile of C (rounded up); launch.
}

void launch_transpose(const float* d_in, float* d_out, int rows, int cols) {
    // TODO(lab-7) step 3a: cover every element of `in` (rounded up) and launch transpose.
}

void launch_matmul_naive_bt(const float* d_a, const float* d_bt, float* d_c, int m, int n, int k) {
    // TODO(lab-7) step 3b: as launch_matmul_naive.
}

void launch_matmul_tiled_bt(const float* d_a, const float* d_bt, float* d_c, int m, int n, int k) {
    // TODO(lab-7) step 3c: as launch_matmul_tiled.
}

}  // namespace matmul
