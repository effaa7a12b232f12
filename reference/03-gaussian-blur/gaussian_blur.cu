// Reference solution for lab 03 (Gaussian blur). Same interface and file name as the starter.
#include "gaussian_blur.h"

#include <string>

namespace gaussian_blur {

// Naive kernel: 32x8 threads, a warp covers 32 neighbouring pixels of one row.
constexpr int kNaiveX = 32;
constexpr int kNaiveY = 8;
// Tiled kernel: 16x16 output pixels per block, one per thread; the shared tile is 18x18 pixels.
constexpr int kTileX = 16;
constexpr int kTileY = 16;

// Host-side error check: the grader reports the exception with the failing call.
void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(status));
    }
}

__device__ int clamp_to(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

__global__ void blur_naive(const std::uint8_t* __restrict__ in, std::uint8_t* __restrict__ out, int width,
                           int height, int channels) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    // Clamp-to-edge: a neighbour outside the image is the nearest pixel inside it.
    const int xl = clamp_to(x - 1, width - 1), xr = clamp_to(x + 1, width - 1);
    const int yu = clamp_to(y - 1, height - 1), yd = clamp_to(y + 1, height - 1);
    const std::size_t up = std::size_t(yu) * width, mid = std::size_t(y) * width, down = std::size_t(yd) * width;
    for (int c = 0; c < channels; ++c) {
        const int sum = 1 * in[(up + xl) * channels + c] + 2 * in[(up + x) * channels + c] + 1 * in[(up + xr) * channels + c] +
                        2 * in[(mid + xl) * channels + c] + 4 * in[(mid + x) * channels + c] + 2 * in[(mid + xr) * channels + c] +
                        1 * in[(down + xl) * channels + c] + 2 * in[(down + x) * channels + c] + 1 * in[(down + xr) * channels + c];
        out[(mid + x) * channels + c] = std::uint8_t((sum + 8) >> 4);
    }
}

__global__ void blur_tiled(const std::uint8_t* __restrict__ in, std::uint8_t* __restrict__ out, int width,
                           int height, int channels) {
    // The input region this block needs: its output tile plus a one-pixel halo on every side,
    // in_w x in_h pixels with their channels interleaved, exactly as in the image.
    extern __shared__ std::uint8_t tile[];
    const int in_w = blockDim.x + 2;
    const int in_h = blockDim.y + 2;
    const int x0 = blockIdx.x * blockDim.x - 1;  // image coordinates of tile[0][0]
    const int y0 = blockIdx.y * blockDim.y - 1;

    // Load: the block's threads walk the in_w x in_h pixels together (there are more pixels than
    // threads, hence the loops), each copying all channels of its pixels. Halo pixels outside the
    // image are clamped to the edge here, once, so the compute step needs no bounds checks.
    for (int ty = threadIdx.y; ty < in_h; ty += blockDim.y) {
        const int gy = clamp_to(y0 + ty, height - 1);
        for (int tx = threadIdx.x; tx < in_w; tx += blockDim.x) {
            const int gx = clamp_to(x0 + tx, width - 1);
            const std::uint8_t* src = in + (std::size_t(gy) * width + gx) * channels;
            std::uint8_t* dst = tile + (ty * in_w + tx) * channels;
            for (int c = 0; c < channels; ++c) dst[c] = src[c];
        }
    }
    __syncthreads();

    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    // Pixel (x, y) sits at tile[ty][tx] with tx = threadIdx.x + 1, ty = threadIdx.y + 1.
    const int row_bytes = in_w * channels;
    const std::uint8_t* up = tile + (threadIdx.y + 0) * row_bytes + threadIdx.x * channels;
    const std::uint8_t* mid = up + row_bytes;
    const std::uint8_t* down = mid + row_bytes;
    const int l = 0, m = channels, r = 2 * channels;
    for (int c = 0; c < channels; ++c) {
        const int sum = 1 * up[l + c] + 2 * up[m + c] + 1 * up[r + c] +
                        2 * mid[l + c] + 4 * mid[m + c] + 2 * mid[r + c] +
                        1 * down[l + c] + 2 * down[m + c] + 1 * down[r + c];
        out[(std::size_t(y) * width + x) * channels + c] = std::uint8_t((sum + 8) >> 4);
    }
}

void launch_blur_naive(const std::uint8_t* d_in, std::uint8_t* d_out, int width, int height, int channels) {
    const dim3 block(kNaiveX, kNaiveY);
    const dim3 grid((width + kNaiveX - 1) / kNaiveX, (height + kNaiveY - 1) / kNaiveY);
    blur_naive<<<grid, block>>>(d_in, d_out, width, height, channels);
}

void launch_blur_tiled(const std::uint8_t* d_in, std::uint8_t* d_out, int width, int height, int channels) {
    const dim3 block(kTileX, kTileY);
    const dim3 grid((width + kTileX - 1) / kTileX, (height + kTileY - 1) / kTileY);
    const std::size_t shared = std::size_t(kTileX + 2) * (kTileY + 2) * channels;
    blur_tiled<<<grid, block, shared>>>(d_in, d_out, width, height, channels);
}

void blur_image(const std::uint8_t* in, std::uint8_t* out, int width, int height, int channels) {
    if (width < 1 || height < 1)
        throw std::invalid_argument("blur_image: the image is " + std::to_string(width) + "x" + std::to_string(height) +
                                    " pixels; both sides must be at least 1");
    if (channels != 1 && channels != 3 && channels != 4)
        throw std::invalid_argument("blur_image: " + std::to_string(channels) +
                                    " channels; only 1 (grey), 3 (RGB) or 4 (RGBA) are supported");
    const std::size_t bytes = std::size_t(width) * height * channels;
    std::uint8_t* d_in = nullptr;
    std::uint8_t* d_out = nullptr;
    try {
        check(cudaMalloc(&d_in, bytes), "cudaMalloc");
        check(cudaMalloc(&d_out, bytes), "cudaMalloc");
        check(cudaMemcpy(d_in, in, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to device");
        launch_blur_tiled(d_in, d_out, width, height, channels);
        check(cudaGetLastError(), "launch_blur_tiled");
        check(cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    } catch (...) {
        cudaFree(d_in);
        cudaFree(d_out);
        throw;
    }
    check(cudaFree(d_in), "cudaFree");
    check(cudaFree(d_out), "cudaFree");
}

}  // namespace gaussian_blur
