// Reference solution for lab 05 (3D seven-point stencil, thread coarsening in z). Same interface and
// file name as the starter.
#include "stencil3d_coarsening.h"

#include <algorithm>

namespace stencil3d {

// A block is a 2D input tile of IN_TILE x IN_TILE threads (the inner OUT_TILE x OUT_TILE compute) that
// walks kPlanes output planes up z. The three planes it keeps in shared memory take 3 * IN_TILE^2 values.
constexpr int kInTile = 32;
constexpr int kOutTile = kInTile - 2;
constexpr int kPlanes = 32;

int blocks_for(int cells, int per_block) { return (cells + per_block - 1) / per_block; }

template <typename T>
__global__ void stencil_coarsened(const T* __restrict__ in, T* __restrict__ out, int nx, int ny, int nz,
                                  Coefficients<T> c) {
    __shared__ T below[kInTile][kInTile];
    __shared__ T here[kInTile][kInTile];
    __shared__ T above[kInTile][kInTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = blockIdx.x * kOutTile + tx;  // the input cell this thread loads in every plane
    const int y = blockIdx.y * kOutTile + ty;
    const int z_first = blockIdx.z * kPlanes + 1;  // the block's output planes: z_first ... z_last
    const int z_last = min(z_first + kPlanes - 1, nz - 2);
    const bool loads = x < nx && y < ny;
    const bool computes = loads && tx >= 1 && tx <= kInTile - 2 && ty >= 1 && ty <= kInTile - 2 && x <= nx - 2 &&
                          y <= ny - 2;
    const size_t plane = size_t(nx) * size_t(ny);
    const size_t column = size_t(y) * nx + x;
    if (loads) {
        below[ty][tx] = in[size_t(z_first - 1) * plane + column];
        here[ty][tx] = in[size_t(z_first) * plane + column];
    }
    // Every thread runs every iteration (a thread with nothing to load or compute still takes part in the
    // barriers), so no __syncthreads() is ever skipped by part of the block.
    for (int z = z_first; z <= z_last; ++z) {
        if (loads) above[ty][tx] = in[size_t(z + 1) * plane + column];
        __syncthreads();  // the three planes are complete
        if (computes) {
            out[size_t(z) * plane + column] = c.c0 * here[ty][tx] + c.c1 * here[ty][tx - 1] + c.c2 * here[ty][tx + 1] +
                                              c.c3 * here[ty - 1][tx] + c.c4 * here[ty + 1][tx] +
                                              c.c5 * below[ty][tx] + c.c6 * above[ty][tx];
        }
        __syncthreads();  // nobody still reads these planes when they move down one
        if (loads) {
            below[ty][tx] = here[ty][tx];
            here[ty][tx] = above[ty][tx];
        }
    }
}

template <typename T>
void coarsened(const T* d_in, T* d_out, int nx, int ny, int nz, Coefficients<T> c) {
    const dim3 block(kInTile, kInTile);
    const dim3 grid(blocks_for(nx - 2, kOutTile), blocks_for(ny - 2, kOutTile), blocks_for(nz - 2, kPlanes));
    stencil_coarsened<<<grid, block>>>(d_in, d_out, nx, ny, nz, c);
}

void launch_stencil_coarsened(const float* d_in, float* d_out, int nx, int ny, int nz, Coefficients<float> c) {
    coarsened(d_in, d_out, nx, ny, nz, c);
}
void launch_stencil_coarsened(const double* d_in, double* d_out, int nx, int ny, int nz, Coefficients<double> c) {
    coarsened(d_in, d_out, nx, ny, nz, c);
}

}  // namespace stencil3d
