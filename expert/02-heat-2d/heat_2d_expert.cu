// Lab 02's expert 5-point FTCS step. 8 bytes of compulsory traffic per cell for 6 flops: bound by
// DRAM bandwidth, so the kernel's job is to read every input byte from DRAM once, with few
// instructions and many bytes in flight.
//
// - Column strips with a register window in y: a thread owns kVec adjacent columns and walks
//   kRows rows down them. It loads its kRows + 2 rows once (all loads issued before any arithmetic:
//   up to (kRows+2) * 8 bytes in flight per thread, enough to cover Hopper's HBM latency) and
//   reuses each row as the "down", "centre" and "up" neighbour of three outputs; the vertical halo
//   costs 2 extra rows per kRows, mostly L2 hits from the strip above or below. Measured on an H100:
//   2 to 4 rows per thread are within noise of each other; 6 rows lose 5%, 16 rows 20%, 32 rows 45%
//   (more registers, fewer resident warps, fewer strips to spread over the SMs).
// - Horizontal neighbours by warp shuffle: a warp's lanes hold adjacent columns, so in(i-1, j) and
//   in(i+kVec, j) come from the lanes beside it; only lanes 0 and 31 load one extra float per row.
// - Wide accesses, within what the layout allows: the row pitch nx+2 makes row j start at byte
//   4*j*(nx+2), so rows are 16-byte aligned only every other row at the timed size (nx + 2 = 8194).
//   Every row is 8-byte aligned whenever nx is even, so the fast path uses float2 loads and stores
//   at even column pairs; an odd pitch (or unaligned pointers) takes the same kernel with kVec = 1.
#include "heat_2d_expert.h"

#include <cstdint>
#include <cuda_runtime.h>

namespace expert {
namespace {

constexpr int kHeatBlock = 128;  // threads of a block, all along x (one strip of rows per block)
constexpr int kHeatRows = 4;     // rows per thread (see above)

template <int kVec>
__device__ __forceinline__ void heat_load(const float* p, float (&v)[kVec]) {
    if constexpr (kVec == 2) {
        const float2 t = __ldg(reinterpret_cast<const float2*>(p));
        v[0] = t.x;
        v[1] = t.y;
    } else {
        v[0] = __ldg(p);
    }
}

template <int kVec, bool kStreamStores>
__device__ __forceinline__ void heat_store(float* p, const float (&v)[kVec]) {
    if constexpr (kVec == 2) {
        if constexpr (kStreamStores) __stcs(reinterpret_cast<float2*>(p), make_float2(v[0], v[1]));
        else *reinterpret_cast<float2*>(p) = make_float2(v[0], v[1]);
    } else {
        if constexpr (kStreamStores) __stcs(p, v[0]); else *p = v[0];
    }
}

// Thread t owns columns i0 = t*kVec .. i0+kVec-1 of the whole padded row (ghost columns included:
// they are neighbours), for the rows j0 .. j0+kRows-1 of each strip its block visits.
template <int kVec, int kRows, bool kStreamStores, int kBlock>
__global__ void __launch_bounds__(kBlock)
    heat2d_strips(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, float r) {
    const long long pitch = static_cast<long long>(nx) + 2;
    const int lane = threadIdx.x & 31;
    const long long i0 = (static_cast<long long>(blockIdx.x) * kBlock + threadIdx.x) * kVec;
    const bool active = i0 < pitch;

    for (long long j0 = 1 + static_cast<long long>(blockIdx.y) * kRows; j0 <= ny;
         j0 += static_cast<long long>(gridDim.y) * kRows) {
        // Rows j0-1 .. j0+kRows (the last one at most the ghost row ny+1).
        float w[kRows + 2][kVec];
        float edge[kRows + 2];  // lane 0: in(i0-1, j); lane 31: in(i0+kVec, j)
#pragma unroll
        for (int q = 0; q < kRows + 2; ++q) {
            const long long j = j0 - 1 + q;
#pragma unroll
            for (int c = 0; c < kVec; ++c) w[q][c] = 0.0f;
            edge[q] = 0.0f;
            if (active && j <= ny + 1) {
                const float* row = in + j * pitch;
                heat_load<kVec>(row + i0, w[q]);
                if (q >= 1 && q <= kRows) {
                    if (lane == 0 && i0 > 0) edge[q] = __ldg(row + i0 - 1);
                    if (lane == 31 && i0 + kVec < pitch) edge[q] = __ldg(row + i0 + kVec);
                }
            }
        }
#pragma unroll
        for (int q = 1; q <= kRows; ++q) {
            const long long j = j0 - 1 + q;
            if (j > ny) break;  // the same for the whole block: shuffles stay converged
            float left = __shfl_up_sync(0xffffffffu, w[q][kVec - 1], 1);
            float right = __shfl_down_sync(0xffffffffu, w[q][0], 1);
            if (!active) continue;
            if (lane == 0) left = edge[q];
            if (lane == 31) right = edge[q];
            float o[kVec];
#pragma unroll
            for (int c = 0; c < kVec; ++c) {
                const float centre = w[q][c];
                const float l = c == 0 ? left : w[q][c - 1];
                const float rr = c == kVec - 1 ? right : w[q][c + 1];
                // The lab's formula, in the lab's order of operations.
                o[c] = centre + r * (l + rr + w[q - 1][c] + w[q + 1][c] - 4.0f * centre);
            }
            float* dst = out + j * pitch + i0;
            if (i0 >= 1 && i0 + kVec - 1 <= nx) {
                heat_store<kVec, kStreamStores>(dst, o);
            } else {  // a pair holding a ghost column: write only its interior cell
#pragma unroll
                for (int c = 0; c < kVec; ++c)
                    if (i0 + c >= 1 && i0 + c <= nx) dst[c] = o[c];
            }
        }
    }
}

template <int kVec, int kRows, bool kStreamStores, int kBlock = kHeatBlock>
void launch_heat2d_strips(const float* d_in, float* d_out, int nx, int ny, float r) {
    const long long columns = (static_cast<long long>(nx) + 2 + kVec - 1) / kVec;
    const long long strips = (static_cast<long long>(ny) + kRows - 1) / kRows;
    const dim3 grid(static_cast<unsigned>((columns + kBlock - 1) / kBlock),
                    static_cast<unsigned>(strips < 65535 ? strips : 65535));
    heat2d_strips<kVec, kRows, kStreamStores, kBlock><<<grid, kBlock>>>(d_in, d_out, nx, ny, r);
}

}  // namespace

void launch_heat2d_step(const float* d_in, float* d_out, int nx, int ny, float r) {
    if (nx < 1 || ny < 1) return;
    const bool aligned = ((reinterpret_cast<std::uintptr_t>(d_in) | reinterpret_cast<std::uintptr_t>(d_out)) & 7) == 0;
    if (aligned && nx % 2 == 0) {
        launch_heat2d_strips<2, kHeatRows, true>(d_in, d_out, nx, ny, r);
    } else {
        launch_heat2d_strips<1, kHeatRows, true>(d_in, d_out, nx, ny, r);
    }
}

}  // namespace expert
