// The expert 3D seven-point stencil: 2.5D streaming along z through a cp.async ring of shared-memory planes.
//
// Why this shape. A sweep does 13 flops per cell and must move 2 * sizeof(T) bytes per cell: far below any
// GPU's flop/byte balance, so all that counts is DRAM traffic close to the compulsory bytes, moved at the
// rate a plain copy gets. The textbook kernels keep few bytes in flight (a block loads one plane, waits at
// a barrier, computes, loads the next) or lean on L1/L2 for 7 loads per cell (naive): on an H100, 512^3
// float, they reach 26-60% of a device-to-device copy.
//
// - A block owns a TX x TY tile of the xy-plane and walks a chunk of output planes up z. Its input planes
//   (tile + one-cell halo) stream through a ring of S shared-memory stages filled by cp.async (sm_80+:
//   asynchronous 16-byte global->shared copies that hold no registers), issued S-2 planes ahead; one
//   barrier per plane.
// - Each thread owns M columns (x) times R consecutive rows (y). The z-neighbours and the y-neighbours
//   inside its R rows stay in registers: an output costs ~3.5 shared-memory reads.
// - Wide tiles, one block per SM, one wave (H100, 512^3 unless said, % of a D2D copy in the same run):
//   rows of 2 KB per tile beat 512-byte ones (double 256-wide 89% vs 128-wide 83%; float 449^3 512-wide
//   80% vs 71%), and one block per SM owning a whole z column beats two per SM at different z (double 88%
//   vs 78%). So the launch picks the tile height and z-chunk that give about one block per SM equal work;
//   y-neighbour tiles then stream the same planes at the same pace, so their shared halo rows can be L2
//   hits (not measured: no profiler was at hand). Each z-chunk's two end planes are read twice.
// - Float results leave through shared memory as aligned 16-byte stores (the interior starts at x = 1, so
//   a warp's 4-byte stores straddle 128-byte lines): 73% -> 84-90% at 512^3 (two runs). Double stores
//   directly: 8-byte stores reach 88%, staging gave 80%.
// - Nothing assumes alignment (nx = 449, any element-aligned pointer): a shared row holds the aligned
//   16-byte chunks of memory covering the row's span, plus the row's shift (where its first element sits
//   in its chunk). Chunks reaching outside the array are copied element by element: nothing outside d_in
//   is read, nothing outside the interior of d_out is written.
#include "stencil3d_expert.h"

#include <cuda_pipeline.h>  // __pipeline_commit / __pipeline_wait_prior (cp.async groups)
#include <cuda_runtime.h>

#include <cstdint>

namespace expert {
namespace {

using stencil3d::Coefficients;

// One aligned 16-byte chunk global -> shared, without waiting. .cg: cached in L2 only; the block keeps its
// own copy in shared memory, so an L1 line would be wasted.
__device__ __forceinline__ void copy16(void* dst, const void* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
#else
    __pipeline_memcpy_async(dst, src, 16);
#endif
}

template <typename T, int TXT_, int M_, int GY_, int R_, int S_, bool STAGED_>
struct Shape {
    static constexpr int TXT = TXT_;  // threads along x (threadIdx.x)
    static constexpr int M = M_;      // output columns per thread: x0 + threadIdx.x + m * TXT
    static constexpr int GY = GY_;    // threads along y (threadIdx.y)
    static constexpr int R = R_;      // consecutive output rows per thread
    static constexpr int S = S_;      // shared-memory planes: two being read, S-2 in flight
    static constexpr bool STAGED = STAGED_;  // outputs leave through shared memory as aligned 16-byte chunks
    static constexpr int TX = TXT * M, TY = GY * R;  // the largest tile (a launch may use fewer rows)
    static constexpr int THREADS = TXT * GY;
    static constexpr int V = 16 / int(sizeof(T));         // elements per 16-byte chunk
    static constexpr int ROWS = TY + 2;                    // the tile's rows and its y-halo
    static constexpr int NC = (TX + 2 + 2 * (V - 1)) / V;  // chunks covering TX+2 elements at any shift
    static constexpr int W = NC * V;                       // a shared row, in elements
    static constexpr int SMEM = (S * ROWS + (STAGED ? 2 * TY : 0)) * W * int(sizeof(T));
    static_assert(S >= 3, "two planes are read while the next ones load");
};

// Block (bx, by, bz) computes x in [1 + bx*TX, ...], y in [1 + by*tyr, ... + tyr - 1] (tyr <= TY rows),
// z in [1 + bz*zc, ... + zc - 1], each cut at the interior's edge.
template <typename T, class P>
__global__ void __launch_bounds__(P::THREADS)
stencil_streamed(const T* __restrict__ in, T* __restrict__ out, int nx, int ny, int nz, int tyr, int zc,
                 Coefficients<T> c) {
    constexpr int V = P::V, M = P::M, R = P::R, S = P::S, W = P::W, NC = P::NC, ROWS = P::ROWS;
    extern __shared__ __align__(16) unsigned char smem[];
    T(*ring)[ROWS][W] = reinterpret_cast<T(*)[ROWS][W]>(smem);
    T(*ostage)[P::TY][W] = reinterpret_cast<T(*)[P::TY][W]>(smem + S * ROWS * W * sizeof(T));

    const int tx = threadIdx.x, tid = threadIdx.y * P::TXT + tx;
    const int x0 = 1 + blockIdx.x * P::TX, y0 = 1 + blockIdx.y * tyr;  // the tile's first output cell
    const int x_end = min(x0 + P::TX - 1, nx - 2), y_end = min(y0 + tyr - 1, ny - 2);  // and its last
    const int z_first = 1 + blockIdx.z * zc;
    const int planes = min(zc, nz - 1 - z_first) + 2;  // input planes z_first-1 ... z_last+1
    const int in_rows = y_end - y0 + 3;               // input rows y0-1 ... y_end+1
    const int xlo = x0 - 1, xhi = x_end + 1;          // the input span of every row
    const long long row = nx, plane = row * ny, cells = plane * nz;
    // Chunks are aligned in memory, not in x: with in[0] at position p of its chunk, array element g sits
    // at position (g + p) % V of chunk (g + p) / V.
    const int p = int((reinterpret_cast<std::uintptr_t>(in) / sizeof(T)) % V);

    // Issues the copies of input plane j (z = z_first-1+j) into stage j % S and commits them as one group
    // (an empty group past the last plane, so that wait_prior counts stay the same in every iteration).
    auto load = [&](int j) {
        if (j < planes) {
            const long long z_at = (z_first - 1 + j) * plane;
            for (int i = tid; i < in_rows * NC; i += P::THREADS) {
                const int r = i / NC, k = i - r * NC;
                const long long at = z_at + (y0 - 1 + r) * row;
                const long long g = ((at + xlo + p) & ~(long long)(V - 1)) + k * V - p;  // chunk's first element
                if (g > at + xhi) continue;
                T* dst = &ring[j % S][r][k * V];
                if (g >= 0 && g + V <= cells) {
                    copy16(dst, in + g);
                } else {
                    for (int e = 0; e < V; ++e)
                        if (g + e >= 0 && g + e < cells) dst[e] = in[g + e];
                }
            }
        }
        __pipeline_commit();
    };

    const int nxm = nx & (V - 1), pm = int(plane & (V - 1));  // row and plane strides mod V
    // Shift of shared row 0 (y = y0-1) of input plane 0; shared row q of plane j has (s0 + j*pm + q*nxm) % V.
    const int s0 = int(((z_first - 1) * plane + (y0 - 1) * row + xlo + p) & (V - 1));
    const int q0 = threadIdx.y * R + 1;  // shared row of this thread's first output row
    const int y_first = y0 + threadIdx.y * R;
    // Position of output column m in shared row q of a plane whose row 0 has shift s.
    auto at_x = [&](int s, int q, int m) { return tx + m * P::TXT + 1 + ((s + q * nxm) & (V - 1)); };

    // Staged stores: output row y0+r of plane z sits in stage row r with the shift of out's chunks.
    const int po = int((reinterpret_cast<std::uintptr_t>(out) / sizeof(T)) % V);
    const int so = int((y0 * row + x0 + po) & (V - 1));  // row y0 of plane 0; (so + z*pm + r*nxm) % V
    auto flush = [&](int z, int b) {  // stores output plane z from stage b as aligned 16-byte chunks
        for (int i = tid; i < (y_end - y0 + 1) * NC; i += P::THREADS) {
            const int r = i / NC, k = i - r * NC;
            const long long at = z * plane + (y0 + r) * row;
            const long long g = ((at + x0 + po) & ~(long long)(V - 1)) + k * V - po;  // chunk's first element
            if (g > at + x_end) continue;
            const T* src = &ostage[b][r][k * V];
            if (g >= at + x0 && g + V - 1 <= at + x_end) {
                *reinterpret_cast<uint4*>(out + g) = *reinterpret_cast<const uint4*>(src);
            } else {
                for (int e = 0; e < V; ++e)
                    if (g + e >= at + x0 && g + e <= at + x_end) out[g + e] = src[e];
            }
        }
    };

    T below[M][R], here[M][R], above[M][R];  // this thread's columns in planes z-1, z, z+1
    for (int j = 0; j < S - 2; ++j) load(j);
    for (int j = 0; j < planes; ++j) {
        __pipeline_wait_prior(S - 3);  // this thread's copies of plane j have landed ...
        __syncthreads();               // ... and everyone's; plane j-2's stage is no longer read
        if constexpr (P::STAGED)
            if (j >= 3) flush(z_first + j - 3, (j - 1) & 1);  // the plane computed in the last iteration
        load(j + S - 2);
        const int s_new = (s0 + j * pm) & (V - 1);
#pragma unroll
        for (int m = 0; m < M; ++m)
#pragma unroll
            for (int r = 0; r < R; ++r) above[m][r] = ring[j % S][q0 + r][at_x(s_new, q0 + r, m)];
        if (j >= 2) {  // output plane z = z_first + j - 2 from planes j-2 (below), j-1 (here), j (above)
            const int z = z_first + j - 2;
            const T(*mid)[W] = ring[(j - 1) % S];
            const int s = (s0 + (j - 1) * pm) & (V - 1);
            const long long o = (z * (long long)ny + y_first) * row + x0 + tx;
            const int sz = (so + z * pm) & (V - 1);
#pragma unroll
            for (int m = 0; m < M; ++m)
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const int q = q0 + r, i = at_x(s, q, m);
                    const T y_lo = r == 0 ? mid[q - 1][at_x(s, q - 1, m)] : here[m][r - 1];
                    const T y_hi = r == R - 1 ? mid[q + 1][at_x(s, q + 1, m)] : here[m][r + 1];
                    const T v = c.c0 * here[m][r] + c.c1 * mid[q][i - 1] + c.c2 * mid[q][i + 1] + c.c3 * y_lo +
                                c.c4 * y_hi + c.c5 * below[m][r] + c.c6 * above[m][r];
                    if constexpr (P::STAGED) {
                        const int rr = q0 - 1 + r;  // the row's index in the tile
                        ostage[j & 1][rr][tx + m * P::TXT + ((sz + rr * nxm) & (V - 1))] = v;
                    } else if (x0 + tx + m * P::TXT <= x_end && y_first + r <= y_end) {
                        out[o + r * row + m * P::TXT] = v;
                    }
                }
        }
#pragma unroll
        for (int m = 0; m < M; ++m)
#pragma unroll
            for (int r = 0; r < R; ++r) {
                below[m][r] = here[m][r];
                here[m][r] = above[m][r];
            }
    }
    if constexpr (P::STAGED) {
        __syncthreads();
        flush(z_first + planes - 3, (planes - 1) & 1);
    }
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// zc > 0: a fixed z-chunk of zc planes and tiles of TY rows. zc = 0: the tile height (<= TY) and z-chunk
// that spread the grid over the SMs, one block each, most evenly: the least (rows + 1) * (planes + 2) of a
// block (a halo row is mostly an L2 hit, a halo plane a DRAM read), times the number of waves.
template <typename T, class P>
void launch_shape(const T* in, T* out, int nx, int ny, int nz, Coefficients<T> c, int zc = 0) {
    if (nx < 3 || ny < 3 || nz < 3) return;  // no interior cell
    if (P::SMEM > 48 * 1024) {
        static const cudaError_t once =
            cudaFuncSetAttribute(stencil_streamed<T, P>, cudaFuncAttributeMaxDynamicSharedMemorySize, P::SMEM);
        (void)once;  // a failure shows as the launch's error
    }
    const int ix = nx - 2, iy = ny - 2, iz = nz - 2;  // interior extents
    const int gx = ceil_div(ix, P::TX);
    int tyr = P::TY, gy = ceil_div(iy, P::TY), gz = zc > 0 ? ceil_div(iz, zc) : 1;
    if (zc <= 0) {
        int device = 0, sms = 1;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        long long best = -1;
        for (int cz = 1; cz <= 8 && cz <= iz; ++cz)
            for (int cy = gy; cy <= gy + 16 && cy <= iy; ++cy) {
                const int rows = ceil_div(iy, cy), planes = ceil_div(iz, cz);
                const long long blocks = 1ll * gx * ceil_div(iy, rows) * ceil_div(iz, planes);
                const long long cost = (blocks + sms - 1) / sms * (rows + 1) * (planes + 2);
                if (best < 0 || cost < best) best = cost, tyr = rows, zc = planes;
            }
        gy = ceil_div(iy, tyr);
        gz = ceil_div(iz, zc);
    }
    stencil_streamed<T, P><<<dim3(gx, gy, gz), dim3(P::TXT, P::GY), P::SMEM>>>(in, out, nx, ny, nz, tyr, zc, c);
}

// float: 512 x 16 tiles (128 x 4 threads, 4 columns x 4 rows each), 4 stages, staged stores: 216 KB of
// shared memory, one block per SM. Where a block may not have that much (A100: 163 KB), 128 x 16 tiles
// without staging (39 KB). double: 256 x 8 tiles (256 x 2 threads, 1 x 4 each), 4 stages, direct stores.
using FloatShape = Shape<float, 128, 4, 4, 4, 4, true>;
using FloatSmallShape = Shape<float, 128, 1, 4, 4, 4, false>;
using DoubleShape = Shape<double, 256, 1, 2, 4, 4, false>;

}  // namespace

void launch_stencil3d(const float* d_in, float* d_out, int nx, int ny, int nz, Coefficients<float> c) {
    static const bool fits = [] {
        int device = 0, optin = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        return optin >= FloatShape::SMEM;
    }();
    if (fits) launch_shape<float, FloatShape>(d_in, d_out, nx, ny, nz, c);
    else launch_shape<float, FloatSmallShape>(d_in, d_out, nx, ny, nz, c);
}
void launch_stencil3d(const double* d_in, double* d_out, int nx, int ny, int nz, Coefficients<double> c) {
    launch_shape<double, DoubleShape>(d_in, d_out, nx, ny, nz, c);
}

}  // namespace expert
