// Lab 01's expert FTCS step. The step moves 8 bytes per cell (one float read, one written) and does
// 4 flops, so it is bound by DRAM bandwidth: the only goal is to keep HBM busy with as few
// instructions and as little redundant traffic as possible.
//
// - 16-byte accesses: each thread loads float4 vectors and stores float4 results (one LDG.128 and
//   one STG.128 per 4 cells instead of 3 loads + 1 store per cell in the one-cell-per-thread kernel).
// - Neighbours without reloading: a warp's 32 lanes hold 32 consecutive vectors, so in[i-1] and
//   in[i+4] come from the lanes beside it by warp shuffle; only lanes 0 and 31 load one extra float
//   (an L1/L2 hit: the neighbouring warp loads that line anyway). DRAM sees every input byte once.
// - Memory-level parallelism: all of a thread's loads are issued before any arithmetic. One float4
//   per thread measured fastest on an H100 (2 or 4 per thread: 1-2% slower): 2048 resident threads
//   x 16 bytes per SM already cover HBM's latency, and more vectors per thread only lengthen the tail.
// - Ragged ends: the first vector (cell 0 is not written), the last vectors (cell M-1 is not written)
//   and a tail of M % 4 cells take a per-cell path inside the same kernel; every other vector is
//   written with one float4 store. Pointers that are not 16-byte aligned take a plain per-cell kernel.
#include "heat_rod_expert.h"

#include <cstdint>
#include <cuda_runtime.h>

namespace expert {
namespace {

constexpr int kRodBlock = 256;
constexpr int kRodVectors = 1;  // float4 vectors per thread (see above)

// The lab's formula, in the lab's order of operations.
__device__ __forceinline__ float rod_ftcs(float left, float centre, float right, float r) {
    return centre + r * (right - 2.0f * centre + left);
}

// Vector k holds cells 4k .. 4k+3; a block covers kRodBlock * kVectors consecutive vectors, and
// lane l of a warp holds vector (warp's first) + l, so shuffles see adjacent vectors.
template <int kVectors, bool kStreamStores>
__global__ void __launch_bounds__(kRodBlock)
    rod_step_vec4(const float* __restrict__ in, float* __restrict__ out, long long M, float r) {
    const long long whole = M / 4;         // vectors entirely inside the array
    const long long count = (M + 3) / 4;   // and the ragged tail's partial vector
    const int lane = threadIdx.x & 31;
    const long long first = static_cast<long long>(blockIdx.x) * (kRodBlock * kVectors) + threadIdx.x;

    float4 v[kVectors];
    float edge[kVectors];  // lane 0: in[4k-1]; lane 31: in[4k+4]; loaded with the vectors
#pragma unroll
    for (int u = 0; u < kVectors; ++u) {
        const long long k = first + u * kRodBlock, i = 4 * k;
        if (k < whole) {
            v[u] = __ldg(reinterpret_cast<const float4*>(in) + k);
        } else {  // the tail's partial vector, or past the end: zeros, never written
            v[u].x = i < M ? in[i] : 0.0f;
            v[u].y = i + 1 < M ? in[i + 1] : 0.0f;
            v[u].z = i + 2 < M ? in[i + 2] : 0.0f;
            v[u].w = 0.0f;  // cell i+3 < M would make this vector whole
        }
        edge[u] = 0.0f;
        if (lane == 0 && k < count && i > 0) edge[u] = in[i - 1];
        if (lane == 31 && i + 4 < M) edge[u] = in[i + 4];
    }

#pragma unroll
    for (int u = 0; u < kVectors; ++u) {
        const long long k = first + u * kRodBlock, i = 4 * k;
        // Every lane takes part in the shuffles, even past the end.
        float left = __shfl_up_sync(0xffffffffu, v[u].w, 1);
        float right = __shfl_down_sync(0xffffffffu, v[u].x, 1);
        if (k >= count) continue;
        if (lane == 0) left = edge[u];
        if (lane == 31) right = edge[u];
        const float4 c = v[u];
        const float4 o = make_float4(rod_ftcs(left, c.x, c.y, r), rod_ftcs(c.x, c.y, c.z, r),
                                     rod_ftcs(c.y, c.z, c.w, r), rod_ftcs(c.z, c.w, right, r));
        if (k >= 1 && i + 5 <= M) {  // cells i .. i+3 all inside 1 .. M-2
            float4* dst = reinterpret_cast<float4*>(out) + k;
            if constexpr (kStreamStores) __stcs(dst, o); else *dst = o;
        } else {
            const float cells[4] = {o.x, o.y, o.z, o.w};
#pragma unroll
            for (int e = 0; e < 4; ++e)
                if (i + e >= 1 && i + e <= M - 2) out[i + e] = cells[e];
        }
    }
}

// Fallback for pointers that are not 16-byte aligned: one cell per thread, grid-stride.
__global__ void rod_step_scalar(const float* __restrict__ in, float* __restrict__ out, long long M, float r) {
    for (long long i = 1 + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < M - 1;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        out[i] = rod_ftcs(in[i - 1], in[i], in[i + 1], r);
}

template <int kVectors, bool kStreamStores>
void launch_rod_vec4(const float* d_in, float* d_out, long long M, float r) {
    const long long vectors = (M + 3) / 4;
    const long long per_block = static_cast<long long>(kRodBlock) * kVectors;
    const unsigned blocks = static_cast<unsigned>((vectors + per_block - 1) / per_block);
    rod_step_vec4<kVectors, kStreamStores><<<blocks, kRodBlock>>>(d_in, d_out, M, r);
}

}  // namespace

void launch_rod_step(const float* d_in, float* d_out, int M, float r) {
    if (M < 3) return;
    const bool aligned = ((reinterpret_cast<std::uintptr_t>(d_in) | reinterpret_cast<std::uintptr_t>(d_out)) & 15) == 0;
    if (aligned) {
        launch_rod_vec4<kRodVectors, true>(d_in, d_out, M, r);
    } else {
        const long long blocks = (static_cast<long long>(M) - 2 + kRodBlock - 1) / kRodBlock;
        rod_step_scalar<<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), kRodBlock>>>(d_in, d_out, M, r);
    }
}

}  // namespace expert
