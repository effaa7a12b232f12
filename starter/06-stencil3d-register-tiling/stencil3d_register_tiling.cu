// Reference solution for lab 06 (3D seven-point stencil, thread coarsening in z with register tiling).
// Same interface and file name as the starter.
#include "stencil3d_register_tiling.h"

#include <algorithm>

namespace stencil3d {

// As in lab 05: IN_TILE x IN_TILE threads, each walking kPlanes output planes up z. Only the current
// plane is shared (IN_TILE^2 values); the planes below and above are each thread's own registers.
constexpr int kInTile = 32;
constexpr int kOutTile = kInTile - 2;
constexpr int kPlanes = 32;

int blocks_for(int cells, int per_block) { return (cells + per_block - 1) / per_block; }

template <typename T>
__global__ void stencil_register_tiled(const T* __restrict__ in, T* __restrict__ out, int nx, int ny, int nz,
                                       Coefficients<T> c) {
    __shared__ T here_s[kInTile][kInTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = blockIdx.x * kOutTile + tx;
    const int y = blockIdx.y * kOutTile + ty;
    const int z_first = blockIdx.z * kPlanes + 1;
    const int z_last = min(z_first + kPlanes - 1, nz - 2);
    const bool loads = x < nx && y < ny;
    const bool computes = loads && tx >= 1 && tx <= kInTile - 2 && ty >= 1 && ty <= kInTile - 2 && x <= nx - 2 &&
                          y <= ny - 2;
    const size_t plane = size_t(nx) * size_t(ny);
    const size_t column = size_t(y) * nx + x;
    T below = 0, here = 0, above = 0;  // this thread's column: planes z - 1, z, z + 1
    if (loads) {
        below = in[size_t(z_first - 1) * plane + column];
        here = in[size_t(z_first) * plane + column];
    }
    for (int z = z_first; z <= z_last; ++z) {
        if (loads) above = in[size_t(z + 1) * plane + column];
        here_s[ty][tx] = here;
        __syncthreads();  // the current plane is complete
        if (computes) {
            out[size_t(z) * plane + column] = c.c0 * here + c.c1 * here_s[ty][tx - 1] + c.c2 * here_s[ty][tx + 1] +
                                              c.c3 * here_s[ty - 1][tx] + c.c4 * here_s[ty + 1][tx] + c.c5 * below +
                                              c.c6 * above;
        }
        __syncthreads();  // nobody still reads the plane when the next one overwrites it
        below = here;  // move up one plane: what was current is now below, what was above is current
        here = above;
    }
}

template <typename T>
void register_tiled(const T* d_in, T* d_out, int nx, int ny, int nz, Coefficients<T> c) {
    const dim3 block(kInTile, kInTile);
    const dim3 grid(blocks_for(nx - 2, kOutTile), blocks_for(ny - 2, kOutTile), blocks_for(nz - 2, kPlanes));
    stencil_register_tiled<<<grid, block>>>(d_in, d_out, nx, ny, nz, c);
}

void launch_stencil_register_tiled(const float* d_in, float* d_out, int nx, int ny, int nz, Coefficients<float> c) {
    register_tiled(d_in, d_out, nx, ny, nz, c);
}
void launch_stencil_register_tiled(const double* d_in, double* d_out, int nx, int ny, int nz,
                                   Coefficients<double> c) {
    register_tiled(d_in, d_out, nx, ny, nz, c);
}

}  // namespace stencil3d
