// Lab 03's expert 3x3 Gaussian blur. 2 bytes of compulsory traffic per output byte for ~10 integer
// operations: bound by DRAM bandwidth once the per-byte instruction count is small, so the kernel
// works on 16-byte vectors of a row and does the arithmetic two bytes per 32-bit operation.
//
// - Bytes, not pixels: in a packed interleaved row, channel c of pixel x is byte b = x*C + c and its
//   horizontal neighbours are bytes b-C and b+C, so one thread can own any 16 consecutive bytes of a
//   row whatever the channel count (16/3 pixels for RGB): one LDG.128 and one STG.128 per row.
//   Clamp-to-edge in x is "byte b-C is byte b when b < C" (and the same at the right end).
// - Separable sums, each row's horizontal sum computed once: h = l + 2m + r per row, then
//   S = h(y-1) + 2 h(y) + h(y+1), out = (S + 8) >> 4. A thread walks kRows rows of its 16-byte
//   column with a three-row window of h in registers; every row it loads serves three outputs.
// - SIMD within a register: one PRMT splits a word into its even and odd bytes, zero-extended to
//   16-bit lanes; h <= 1020 and S + 8 <= 4088 never carry into the next lane, so the handout's exact
//   integer rule holds for two bytes per 32-bit add (bit-exact, no float).
// - Neighbouring bytes without byte shifts: bytes b-C and b+C sit in the same or the next lane pair,
//   so with C a template parameter every shifted operand is a register or one PRMT. The 4 bytes before
//   and after the thread's 16 come from the lanes beside it (__shfl); lanes 0 and 31 load that word.
// - All kRows + 2 row loads are issued before any arithmetic (bytes in flight for HBM's latency).
// Measured on an H100 at 8192 x 8192 x 3 (D2D copy ~2.86 TB/s): 90% of the copy, where a plain
// one-uint4-per-thread copy kernel reaches 100%. What is left is instruction issue, not DRAM (inferred,
// not profiled): the first version of these sums (byte shifts + masks, 848 SASS instructions per 4-row
// strip) reached 85%, this one (PRMT lanes, 744) 90%. 3 or 4 rows per thread are best (2: 87%, 6: 89%,
// 8: 86%); a second copy of the strip without clamps for interior strips took 104 registers instead of 71
// and fell to 77%.
// The fast path needs C <= 4, a row of a multiple of 16 bytes and 16-byte aligned pointers; any other
// image takes a plain one-byte-per-thread kernel with the same rule.
#include "gaussian_blur_expert.h"

#include <cstdint>
#include <cuda_runtime.h>

namespace expert {
namespace {

constexpr int kBlurBlock = 128;  // threads of a block, all along the row
constexpr int kBlurRows = 4;     // rows per thread (see above)

// One row's horizontal sums l + 2m + r of a thread's 16 bytes, in 16-bit lanes: e[t] holds bytes 4t and
// 4t+2, o[t] bytes 4t+1 and 4t+3 (low lane first).
struct BlurRowSums {
    std::uint32_t e[4], o[4];
};

// The 16-bit lanes of the bytes at positions J and J+2 (relative to the thread's first byte,
// -4 <= J <= 17), from E[t+1] = lanes of bytes 4t, 4t+2 and O[t+1] = lanes of bytes 4t+1, 4t+3
// (t = -1 .. 4). A shift by C bytes is a compile-time choice of lanes: a register, or one PRMT that
// joins the upper lane of one word with the lower lane of the next.
template <int J>
__device__ __forceinline__ std::uint32_t blur_lanes(const std::uint32_t (&E)[6], const std::uint32_t (&O)[6]) {
    constexpr int t = (J + 4) / 4 - 1;  // floor(J / 4)
    constexpr int k = J - 4 * t;
    if constexpr (k == 0) return E[t + 1];
    else if constexpr (k == 1) return O[t + 1];
    else if constexpr (k == 2) return __byte_perm(E[t + 1], E[t + 2], 0x5432);
    else return __byte_perm(O[t + 1], O[t + 2], 0x5432);
}

template <int C, int T>
__device__ __forceinline__ void blur_word_sums(const std::uint32_t (&E)[6], const std::uint32_t (&O)[6],
                                               BlurRowSums& h) {
    h.e[T] = blur_lanes<4 * T - C>(E, O) + blur_lanes<4 * T + C>(E, O) + (blur_lanes<4 * T>(E, O) << 1);
    h.o[T] = blur_lanes<4 * T + 1 - C>(E, O) + blur_lanes<4 * T + 1 + C>(E, O) + (blur_lanes<4 * T + 1>(E, O) << 1);
}

// w: the thread's 16 bytes; prev: the 4 bytes before them; next: the 4 bytes after. PRMT with a zero
// word splits a word into its even and odd bytes, zero-extended to 16-bit lanes.
template <int C>
__device__ __forceinline__ BlurRowSums blur_row_sums(const std::uint32_t (&w)[4], std::uint32_t prev,
                                                     std::uint32_t next) {
    std::uint32_t E[6], O[6];
#pragma unroll
    for (int t = 0; t < 6; ++t) {
        const std::uint32_t word = t == 0 ? prev : (t == 5 ? next : w[t - 1]);
        E[t] = __byte_perm(word, 0, 0x4240);
        O[t] = __byte_perm(word, 0, 0x4341);
    }
    BlurRowSums h;
    blur_word_sums<C, 0>(E, O, h);
    blur_word_sums<C, 1>(E, O, h);
    blur_word_sums<C, 2>(E, O, h);
    blur_word_sums<C, 3>(E, O, h);
    return h;
}

// One output word from the sums of the rows above, at and below: (S + 8) >> 4 in every 16-bit lane
// (S + 8 <= 4088 never carries into the next lane; the shift drags the upper lane's low bits into
// bits 12..15, which the PRMT that re-interleaves even and odd bytes leaves out).
__device__ __forceinline__ std::uint32_t blur_out_word(const BlurRowSums& up, const BlurRowSums& mid,
                                                       const BlurRowSums& down, int t) {
    const std::uint32_t e = (up.e[t] + down.e[t] + 0x00080008u + (mid.e[t] << 1)) >> 4;
    const std::uint32_t o = (up.o[t] + down.o[t] + 0x00080008u + (mid.o[t] << 1)) >> 4;
    return __byte_perm(e, o, 0x6240);
}

template <int C, int kRows, bool kStreamStores, int kBlock>
__global__ void __launch_bounds__(kBlock, 512 / kBlock)
    blur_strips16(const std::uint8_t* __restrict__ in, std::uint8_t* __restrict__ out, int width, int height) {
    const long long row_bytes = static_cast<long long>(width) * C;
    const long long vectors = row_bytes / 16;  // a whole number: the launch checks it
    const long long v = static_cast<long long>(blockIdx.x) * kBlock + threadIdx.x;
    const bool active = v < vectors;
    const int lane = threadIdx.x & 31;
    constexpr int kClamp = 8 * (4 - C);  // shift that moves the row's first (last) C bytes into place

    for (long long y0 = static_cast<long long>(blockIdx.y) * kRows; y0 < height;
         y0 += static_cast<long long>(gridDim.y) * kRows) {
        // Rows y0-1 .. y0+kRows, clamped to the image (clamp-to-edge in y).
        std::uint32_t w[kRows + 2][4];
        std::uint32_t edge[kRows + 2];  // lane 0: the word before its 16 bytes; lane 31: the word after
#pragma unroll
        for (int q = 0; q < kRows + 2; ++q) {
            long long y = y0 - 1 + q;
            y = y < 0 ? 0 : (y >= height ? height - 1 : y);
            const std::uint8_t* row = in + y * row_bytes;
            uint4 t = make_uint4(0, 0, 0, 0);
            edge[q] = 0;
            if (active) {
                t = __ldg(reinterpret_cast<const uint4*>(row) + v);
                if (lane == 0 && v > 0) edge[q] = __ldg(reinterpret_cast<const std::uint32_t*>(row) + 4 * v - 1);
                if (lane == 31 && v + 1 < vectors)
                    edge[q] = __ldg(reinterpret_cast<const std::uint32_t*>(row) + 4 * v + 4);
            }
            w[q][0] = t.x;
            w[q][1] = t.y;
            w[q][2] = t.z;
            w[q][3] = t.w;
        }

        // Row q's horizontal sums; all lanes shuffle (the row loop's exits are the same for the block).
        auto row_sums = [&](int q) {
            std::uint32_t prev = __shfl_up_sync(0xffffffffu, w[q][3], 1);
            std::uint32_t next = __shfl_down_sync(0xffffffffu, w[q][0], 1);
            if (lane == 0) prev = edge[q];
            if (lane == 31) next = edge[q];
            if (v == 0) prev = w[q][0] << kClamp;            // bytes -C..-1 := pixel 0's channels
            if (v + 1 == vectors) next = w[q][3] >> kClamp;  // bytes past the end := the last pixel's
            return blur_row_sums<C>(w[q], prev, next);
        };
        BlurRowSums up = row_sums(0), mid = row_sums(1);  // a three-row window of sums
#pragma unroll
        for (int q = 1; q <= kRows; ++q) {
            const long long y = y0 - 1 + q;
            if (y >= height) break;
            const BlurRowSums down = row_sums(q + 1);
            std::uint32_t o[4];
#pragma unroll
            for (int t = 0; t < 4; ++t) o[t] = blur_out_word(up, mid, down, t);
            up = mid;
            mid = down;
            if (!active) continue;
            uint4* dst = reinterpret_cast<uint4*>(out + y * row_bytes) + v;
            const uint4 val = make_uint4(o[0], o[1], o[2], o[3]);
            if constexpr (kStreamStores) __stcs(dst, val); else *dst = val;
        }
    }
}

// Any image: one output byte per thread, the rule written out (grid-stride in both directions).
__global__ void blur_bytes(const std::uint8_t* __restrict__ in, std::uint8_t* __restrict__ out, int width,
                           int height, int channels) {
    const long long row_bytes = static_cast<long long>(width) * channels;
    for (long long y = blockIdx.y; y < height; y += gridDim.y) {
        const std::uint8_t* up = in + (y > 0 ? y - 1 : 0) * row_bytes;
        const std::uint8_t* mid = in + y * row_bytes;
        const std::uint8_t* down = in + (y + 1 < height ? y + 1 : y) * row_bytes;
        for (long long b = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; b < row_bytes;
             b += static_cast<long long>(gridDim.x) * blockDim.x) {
            const long long l = b >= channels ? b - channels : b;
            const long long r = b + channels < row_bytes ? b + channels : b;
            const int sum = up[l] + 2 * up[b] + up[r] + 2 * (mid[l] + 2 * mid[b] + mid[r]) + down[l] + 2 * down[b] +
                            down[r];
            out[y * row_bytes + b] = static_cast<std::uint8_t>((sum + 8) >> 4);
        }
    }
}

template <int C, int kRows, bool kStreamStores, int kBlock = kBlurBlock>
void launch_blur_strips16(const std::uint8_t* d_in, std::uint8_t* d_out, int width, int height) {
    const long long vectors = static_cast<long long>(width) * C / 16;
    const long long strips = (static_cast<long long>(height) + kRows - 1) / kRows;
    const dim3 grid(static_cast<unsigned>((vectors + kBlock - 1) / kBlock),
                    static_cast<unsigned>(strips < 65535 ? strips : 65535));
    blur_strips16<C, kRows, kStreamStores, kBlock><<<grid, kBlock>>>(d_in, d_out, width, height);
}

}  // namespace

void launch_blur(const std::uint8_t* d_in, std::uint8_t* d_out, int width, int height, int channels) {
    if (width < 1 || height < 1 || channels < 1) return;
    const long long row_bytes = static_cast<long long>(width) * channels;
    const bool aligned = ((reinterpret_cast<std::uintptr_t>(d_in) | reinterpret_cast<std::uintptr_t>(d_out)) & 15) == 0;
    if (aligned && row_bytes % 16 == 0) {
        switch (channels) {
            case 1: launch_blur_strips16<1, kBlurRows, true>(d_in, d_out, width, height); return;
            case 2: launch_blur_strips16<2, kBlurRows, true>(d_in, d_out, width, height); return;
            case 3: launch_blur_strips16<3, kBlurRows, true>(d_in, d_out, width, height); return;
            case 4: launch_blur_strips16<4, kBlurRows, true>(d_in, d_out, width, height); return;
            default: break;
        }
    }
    constexpr int kBytesBlock = 256;
    const long long blocks_x = (row_bytes + kBytesBlock - 1) / kBytesBlock;
    const dim3 grid(static_cast<unsigned>(blocks_x < 65535 ? blocks_x : 65535),
                    static_cast<unsigned>(height < 65535 ? height : 65535));
    blur_bytes<<<grid, kBytesBlock>>>(d_in, d_out, width, height, channels);
}

}  // namespace expert
