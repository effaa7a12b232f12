// Lab 03: Gaussian blur. This is the file you edit.
//
// Work through the TODO(lab-3) markers in order; labs/03-gaussian-blur/README.md explains each one.
// Check your progress at any time with:   make grade LAB=03-gaussian-blur
#include "gaussian_blur.h"

#include <string>

namespace gaussian_blur {

// Turns a failed CUDA call into an exception the grader reports with the call's name.
void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(status));
    }
}

// TODO(lab-3) step 1: the naive blur. One thread per output pixel (x, y), all of its channels.
//   - Work out x and y from blockIdx, blockDim and threadIdx. The grid is rounded up to whole
//     blocks, so some threads fall outside the image: they must write nothing.
//   - Clamp each neighbour's coordinates into the image (clamp-to-edge).
//   - For each channel c: S = 1 2 1 / 2 4 2 / 1 2 1 weighted sum of the 9 neighbours' channel c,
//     then out = (S + 8) >> 4. Use int arithmetic, not float.
//   - Channel c of pixel (x, y) is byte (y * width + x) * channels + c.
__global__ void blur_naive(const std::uint8_t* in, std::uint8_t* out, int width, int height, int channels) {
}

// TODO(lab-3) step 2: the tiled blur. One block computes one tile of the output, one pixel per thread.
//   - Declare the tile: `extern __shared__ std::uint8_t tile[];` sized at launch (step 2b) to
//     (tile width + 2) x (tile height + 2) pixels x channels bytes: the tile plus a 1-pixel halo.
//   - Load it: the block's threads together copy every byte of that region (the halo too, clamped
//     to the image edge) from `in` into `tile`. There are more bytes than threads: use a loop.
//   - __syncthreads(): no thread may read the tile before every thread has finished writing it.
//   - Compute your pixel from `tile` only, with the same formula as step 1, and write it to `out`
//     (if it is inside the image).
__global__ void blur_tiled(const std::uint8_t* in, std::uint8_t* out, int width, int height, int channels) {
}

void launch_blur_naive(const std::uint8_t* d_in, std::uint8_t* d_out, int width, int height, int channels) {
    // TODO(lab-3) step 1b: choose a 2D block (e.g. 32 x 8 threads), compute a 2D grid that covers
    // width x height pixels (round up in both directions), and launch blur_naive.
}

void launch_blur_tiled(const std::uint8_t* d_in, std::uint8_t* d_out, int width, int height, int channels) {
    // TODO(lab-3) step 2b: choose the tile (= the block, e.g. 16 x 16 threads), compute the grid
    // (one block per tile, rounded up), work out the shared-memory bytes the tile plus its halo need,
    // and launch blur_tiled with them as the third launch parameter: <<<grid, block, bytes>>>.
}

void blur_image(const std::uint8_t* in, std::uint8_t* out, int width, int height, int channels) {
    // TODO(lab-3) step 3: refuse a bad size first (std::invalid_argument when width or height < 1,
    // or channels is not 1, 3 or 4). Then: two device buffers, copy `in` to the GPU,
    // launch_blur_tiled, check the launch (cudaGetLastError), copy the result into `out`, free both
    // buffers (on the error path too). Use check(...) on every CUDA call.
    throw std::logic_error("TODO(lab-3) step 3: blur_image is not written yet");
}

}  // namespace gaussian_blur
