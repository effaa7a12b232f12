// Lab 05: the 3D seven-point stencil with thread coarsening in z. This is the file you edit.
//
// Work through the TODO(lab-5) markers in order; labs/05-stencil3d-coarsening/README.md explains each
// step. Check your progress at any time with:   make grade LAB=05-stencil3d-coarsening
//
// Reminder of the layout (labs/common/stencil3d.h has the details): cell (x, y, z) of the nx x ny x nz
// grid is at index (z * ny + y) * nx + x, with x the fast index; one z-plane is nx*ny values. The
// interior is 1 <= x <= nx-2, 1 <= y <= ny-2, 1 <= z <= nz-2; the boundary is read and never written.
//
// Why coarsen: lab 04's tiled kernel spends most of its block on the halo (8^3 threads load, 6^3
// compute), and cannot grow its tile, since IN_TILE^3 threads must stay <= 1024. Here a block is a 2D
// tile of threads in x and y (32 x 32 = 1024 is allowed now) that walks UP a column of z-planes: each
// plane is loaded once and used three times (as the plane above, the current plane, the plane below).
#include "stencil3d_coarsening.h"

#include <algorithm>

namespace stencil3d {

// TODO(lab-5) step 1: the coarsened kernel.
//   - Declare the sizes as constexpr int above this kernel: IN_TILE (the block is IN_TILE x IN_TILE
//     threads, one per cell of an input plane), OUT_TILE = IN_TILE - 2 (the halo is one cell on each
//     side in x and y), and PLANES, the number of output planes each block walks (at least 4; the grader
//     checks). IN_TILE^2 <= 1024 threads.
//   - Three __shared__ T arrays of IN_TILE x IN_TILE, indexed [ty][tx] (tx fast): the planes below,
//     at (current) and above the output plane being computed.
//   - threadIdx.x along x, threadIdx.y along y. As in lab 04, block b computes output cells starting at
//     1 + b*OUT_TILE in x and y and its tile starts one cell before; use signed int coordinates.
//   - blockIdx.z picks the chunk of planes: this block computes output planes z_first ... z_last, the
//     first chunk starting at z = 1, each PLANES long, the last one cut short at nz-2. The first and
//     the last plane of every chunk must be computed: an off-by-one here leaves whole planes unwritten
//     (the grader reports them).
//   - Before the loop, load planes z_first-1 and z_first into the "below" and "current" arrays. Then
//     for each z from z_first to z_last:
//       1. load plane z+1 into the "above" array;
//       2. __syncthreads(): the three planes are complete;
//       3. compute out(x,y,z): the x and y neighbours from the current plane, the z neighbours from
//          the below and above planes (c1 x-1, c2 x+1, c3 y-1, c4 y+1, c5 z-1, c6 z+1), none from `in`;
//       4. __syncthreads() again: nobody may still be reading a plane when step 5 overwrites it;
//       5. move up one plane: below takes the current plane, the current plane takes above (in that
//          order, each thread copying its own cell).
//   - Load only cells inside the grid (x < nx, y < ny): tiles are cut short at the far edges. Compute
//     only on the inner threads (1 <= tx, ty <= IN_TILE-2) and only for interior cells.
//   - Every thread of the block must reach every __syncthreads(), in every iteration: no early
//     `return`, and no loop bounds that differ between threads of a block. A thread with no cell to
//     load or compute still runs the loop and takes part in both barriers.
template <typename T>
__global__ void stencil_coarsened(const T* __restrict__ in, T* __restrict__ out, int nx, int ny, int nz,
                                  Coefficients<T> c) {
}

template <typename T>
void coarsened(const T* d_in, T* d_out, int nx, int ny, int nz, Coefficients<T> c) {
    // TODO(lab-5) step 1b: launch stencil_coarsened<<<grid, block>>>(d_in, d_out, nx, ny, nz, c).
    // The block is 2D, IN_TILE x IN_TILE threads. The grid covers the interior: OUT_TILE cells per
    // block in x and y, PLANES planes per block in z, each rounded UP (sizes that are not multiples of
    // the tile are the rule, not the exception). Static __shared__ memory is limited to 48 KiB a block:
    // count three planes of doubles. Do not synchronize: the grader checks the launch.
}

void launch_stencil_coarsened(const float* d_in, float* d_out, int nx, int ny, int nz, Coefficients<float> c) {
    coarsened(d_in, d_out, nx, ny, nz, c);
}
void launch_stencil_coarsened(const double* d_in, double* d_out, int nx, int ny, int nz, Coefficients<double> c) {
    coarsened(d_in, d_out, nx, ny, nz, c);
}

}  // namespace stencil3d
