// Lab 06: the 3D seven-point stencil, coarsened in z, with register tiling. This is the file you edit.
//
// Work through the TODO(lab-6) markers in order; labs/06-stencil3d-register-tiling/README.md explains
// each step. Check your progress at any time with:   make grade LAB=06-stencil3d-register-tiling
//
// Reminder of the layout (labs/common/stencil3d.h has the details): cell (x, y, z) of the nx x ny x nz
// grid is at index (z * ny + y) * nx + x, with x the fast index; one z-plane is nx*ny values. The
// interior is 1 <= x <= nx-2, 1 <= y <= ny-2, 1 <= z <= nz-2; the boundary is read and never written.
//
// Why registers: in lab 05's kernel each thread reads only ITS OWN cell of the planes below and above;
// only the current plane's x and y neighbours belong to other threads. So only the current plane needs
// to be shared. The planes below and above can live in each thread's registers: a third of the shared
// memory, so more blocks fit on a multiprocessor.
#include "stencil3d_register_tiling.h"

#include <algorithm>

namespace stencil3d {

// TODO(lab-6) step 1: the register-tiled kernel. Start from your lab 05 kernel: the same block (a 2D
// IN_TILE x IN_TILE tile of threads, x along threadIdx.x), the same tile and chunk arithmetic (declare
// IN_TILE, OUT_TILE = IN_TILE - 2 and PLANES >= 4 as constexpr int above this kernel; signed int
// coordinates; block b's output starts at 1 + b*OUT_TILE, its tile one cell before), the same chunk of
// output planes z_first ... z_last (the first and last plane of each chunk computed).
//   - ONE __shared__ T array of IN_TILE x IN_TILE, indexed [ty][tx]: the current plane.
//   - Three T values in registers for this thread's own column: below (z-1), current (z), above (z+1).
//     Make them three named variables, not an array: an array indexed with a value known only at run
//     time cannot live in registers, so the compiler puts it in local memory (slow, and the grader
//     checks that nothing spills there).
//   - Before the loop, load planes z_first-1 and z_first into the below and current registers. Then for
//     each z from z_first to z_last:
//       1. load plane z+1 into the above register;
//       2. put the current register into the shared plane;
//       3. __syncthreads(): the shared plane is complete;
//       4. compute out(x,y,z): c0 on the current register, c1 x-1, c2 x+1, c3 y-1, c4 y+1 from the
//          shared plane, c5 on below (z-1), c6 on above (z+1); nothing from `in`;
//       5. __syncthreads() again: nobody may still be reading the shared plane when the next
//          iteration's step 2 overwrites it;
//       6. move up one plane: below = current; current = above; in that order (the other order loses
//          the current plane).
//   - Load only cells inside the grid (x < nx, y < ny); compute only on the inner threads
//     (1 <= tx, ty <= IN_TILE-2) and only for interior cells.
//   - Every thread of the block must reach every __syncthreads(), in every iteration: no early
//     `return`, and the same loop bounds for the whole block. A thread with no cell still runs the loop
//     and takes part in both barriers.
template <typename T>
__global__ void stencil_register_tiled(const T* __restrict__ in, T* __restrict__ out, int nx, int ny, int nz,
                                       Coefficients<T> c) {
}

template <typename T>
void register_tiled(const T* d_in, T* d_out, int nx, int ny, int nz, Coefficients<T> c) {
    // TODO(lab-6) step 1b: launch stencil_register_tiled<<<grid, block>>>(d_in, d_out, nx, ny, nz, c),
    // as in lab 05: a 2D block of IN_TILE x IN_TILE threads; a grid of OUT_TILE cells per block in x
    // and y and PLANES planes per block in z, each rounded UP to cover the interior. Do not synchronize:
    // the grader checks the launch.
}

void launch_stencil_register_tiled(const float* d_in, float* d_out, int nx, int ny, int nz, Coefficients<float> c) {
    register_tiled(d_in, d_out, nx, ny, nz, c);
}
void launch_stencil_register_tiled(const double* d_in, double* d_out, int nx, int ny, int nz,
                                   Coefficients<double> c) {
    register_tiled(d_in, d_out, nx, ny, nz, c);
}

}  // namespace stencil3d
