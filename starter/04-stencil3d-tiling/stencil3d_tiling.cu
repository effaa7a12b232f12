// Lab 04: the 3D seven-point stencil, naive and shared-memory tiled, and a 3D heat solver. This is the
// file you edit.
//
// Work through the TODO(lab-4) markers in order; labs/04-stencil3d-tiling/README.md explains each step.
// Check your progress at any time with:   make grade LAB=04-stencil3d-tiling
//
// Reminder of the layout (labs/common/stencil3d.h has the details): cell (x, y, z) of the nx x ny x nz
// grid is at index
//     (z * ny + y) * nx + x          x is the fast index: cells x and x+1 are neighbouring addresses
// so its x neighbours are 1 away, its y neighbours nx away (one row) and its z neighbours nx*ny away
// (one plane). The interior is 1 <= x <= nx-2, 1 <= y <= ny-2, 1 <= z <= nz-2. The other cells are the
// boundary: your kernels read them and never write them.
//
// Every kernel is written ONCE, as a template on the value type T (float or double). The float and
// double launch functions the grader calls are already written at the end of Part 1: each forwards to
// one template launch helper, and that helper is yours to fill in.
#include "stencil3d_tiling.h"

#include <cmath>
#include <string>
#include <utility>

namespace stencil3d {

// Turns a failed CUDA call into an exception the grader reports with the call's name.
void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(status));
    }
}

// ---- Part 1: the kernels and their launches ------------------------------------------------------

// TODO(lab-4) step 1: the naive kernel. One interior cell per thread, every value read from `in`.
//   - Work out the thread's cell (x, y, z) from blockIdx, blockDim and threadIdx, with threadIdx.x
//     along x: the 32 threads of a warp then read 32 neighbouring addresses (one coalesced access).
//     Put threadIdx.x along z instead and every thread of the warp reads a different plane.
//   - Thread 0 should land on the first interior cell, 1, not on the boundary cell 0.
//   - The grid is rounded up to whole blocks, so some threads fall past the interior (x > nx-2, or
//     y > ny-2, or z > nz-2): they must write nothing. The boundary is never written either.
//   - out(x,y,z) = c.c0 * in(x,y,z)
//                + c.c1 * in(x-1,y,z) + c.c2 * in(x+1,y,z)      (index -1, +1)
//                + c.c3 * in(x,y-1,z) + c.c4 * in(x,y+1,z)      (index -nx, +nx)
//                + c.c5 * in(x,y,z-1) + c.c6 * in(x,y,z+1)      (index -nx*ny, +nx*ny)
//     The grader gives the seven weights seven different values: a weight on the wrong neighbour shows.
//   - __restrict__ promises the compiler that `in` and `out` never overlap, so it may keep values in
//     registers and read `in` through the read-only cache. Keep it.
template <typename T>
__global__ void stencil_naive(const T* __restrict__ in, T* __restrict__ out, int nx, int ny, int nz,
                              Coefficients<T> c) {
}

// TODO(lab-4) step 5: the same result from a shared-memory tile (the textbook's scheme: one thread per
// cell of the INPUT tile).
//   - The input tile is the output tile plus a one-cell halo on every side, so OUT_TILE = IN_TILE - 2:
//     IN_TILE 8 means OUT_TILE 6 (each block of 8^3 = 512 threads loads 512 cells and computes 216).
//     Declare IN_TILE and OUT_TILE as constexpr int above this kernel: a __shared__ array's size must
//     be known when the kernel is compiled, and the launch (step 5b) needs the same numbers.
//   - A block may have at most 1024 threads, and this block has IN_TILE^3 of them: IN_TILE 32 would be
//     32768 threads, an invalid configuration, and the launch fails without running anything.
//   - Declare the tile as __shared__ T tile[IN_TILE][IN_TILE][IN_TILE] and index it [tz][ty][tx], with
//     tx fast, as in global memory.
//   - Block b (in each axis) computes output cells 1 + b*OUT_TILE ... b*OUT_TILE + OUT_TILE; its input
//     tile starts one cell before its first output cell. Work out which input cell your thread loads.
//     Blocks step by OUT_TILE, not IN_TILE: neighbouring blocks' input tiles overlap.
//   - Use signed int for cell coordinates. The textbook computes an unsigned index minus 1 and then
//     tests it with >= 0, which is always true for an unsigned number: 0u - 1 is 4294967295.
//   - Load only cells inside the grid (x < nx, y < ny, z < nz): the last tile in each direction is cut
//     short whenever the interior is not a multiple of OUT_TILE (the grader tries 3, 7, 8, 9, 31, ...).
//   - __syncthreads() between filling the tile and reading it: your neighbours' cells are written by
//     other threads, and nobody may read the tile before every thread has written its cell.
//   - Every thread of the block must reach that __syncthreads(): no early `return` before it. A thread
//     with nothing to load or compute still takes part in the barrier, and simply does nothing after.
//   - Only the inner threads of the tile (1 <= tx, ty, tz <= IN_TILE-2) compute, and only for interior
//     cells of the grid. They read all seven values from `tile`, none from `in`: the grader counts
//     your kernel's reads of `in` (with IN_TILE 8 that is 8^3 loads for 6^3 cells, about 2.4 a cell;
//     the naive kernel reads 7).
template <typename T>
__global__ void stencil_tiled(const T* __restrict__ in, T* __restrict__ out, int nx, int ny, int nz,
                              Coefficients<T> c) {
}

template <typename T>
void naive(const T* d_in, T* d_out, int nx, int ny, int nz, Coefficients<T> c) {
    // TODO(lab-4) step 1b: choose a 3D block (e.g. 32 x 4 x 4: 32 threads along x keep a warp on one
    // row; at most 1024 threads in all), compute how many blocks cover the (nx-2) x (ny-2) x (nz-2)
    // interior in each direction, rounding UP (128 interior cells need 4 blocks of 32, 130 need 5), and
    // launch stencil_naive<<<grid, block>>>(d_in, d_out, nx, ny, nz, c): T is deduced from the
    // arguments. Do not synchronize: the grader checks the launch.
}

template <typename T>
void tiled(const T* d_in, T* d_out, int nx, int ny, int nz, Coefficients<T> c) {
    // TODO(lab-4) step 5b: launch stencil_tiled. The block is the INPUT tile, IN_TILE^3 threads, and
    // must match the tile the kernel declares; each block computes OUT_TILE cells per direction, so the
    // grid is the interior divided by OUT_TILE, rounded up.
}

void launch_stencil_naive(const float* d_in, float* d_out, int nx, int ny, int nz, Coefficients<float> c) {
    naive(d_in, d_out, nx, ny, nz, c);
}
void launch_stencil_naive(const double* d_in, double* d_out, int nx, int ny, int nz, Coefficients<double> c) {
    naive(d_in, d_out, nx, ny, nz, c);
}
void launch_stencil_tiled(const float* d_in, float* d_out, int nx, int ny, int nz, Coefficients<float> c) {
    tiled(d_in, d_out, nx, ny, nz, c);
}
void launch_stencil_tiled(const double* d_in, double* d_out, int nx, int ny, int nz, Coefficients<double> c) {
    tiled(d_in, d_out, nx, ny, nz, c);
}

// ---- Part 2: the host code of the 3D heat solver --------------------------------------------------

double choose_dt(double k, double h, double tmax) {
    // TODO(lab-4) step 2: the largest dt with r = k*dt/h^2 <= 1/6 that splits tmax into a whole number
    // of steps: the largest stable dt, then the fewest steps of at most that size that reach tmax
    // (round the count UP), then dt = tmax / steps. Mind the 3D bound: 1/6 (six neighbours), not the
    // square's 1/4 or the rod's 1/2.
    throw std::logic_error("TODO(lab-4) step 2: choose_dt is not written yet");
}

// Both integrate overloads below forward to this template.
template <typename T>
void integrate_on_gpu(T* f, int nx, int ny, int nz, double k, double h, double dt, int steps, StencilKernel kernel) {
    // TODO(lab-4) step 3: first refuse an unstable dt: if r = k*dt/h^2 > 1/6 + 1e-12, throw
    // std::invalid_argument with a message that gives r, before touching f or the GPU. Then:
    //   - two device buffers of nx*ny*nz values of type T, and copy f into BOTH: the kernels never
    //     write the boundary, so each buffer must already hold f's fixed boundary values;
    //   - the heat weights: c0 = 1 - 6r, c1 = ... = c6 = r (as a Coefficients<T>);
    //   - `steps` times { launch the kernel `kernel` names (call naive or tiled above: the tiled one
    //     works once step 5 is done); swap the two buffer pointers };
    //   - check the launches (cudaGetLastError), copy the newest buffer back into f, free both buffers
    //     (on the error path too: a check that throws must not leak them).
    // Use check(...) on every CUDA call.
    throw std::logic_error("TODO(lab-4) step 3: integrate is not written yet");
}

// Both solve overloads below forward to this template.
template <typename T>
int solve_on_gpu(T* f, int nx, int ny, int nz, double k, double h, double tmax, StencilKernel kernel) {
    // TODO(lab-4) step 4: pick dt with choose_dt, work out the number of steps (tmax/dt is a whole
    // number only up to rounding: round it to the nearest integer, do not truncate), integrate, and
    // return the number of steps.
    throw std::logic_error("TODO(lab-4) step 4: solve is not written yet");
}

void integrate(float* f, int nx, int ny, int nz, double k, double h, double dt, int steps, StencilKernel kernel) {
    integrate_on_gpu(f, nx, ny, nz, k, h, dt, steps, kernel);
}
void integrate(double* f, int nx, int ny, int nz, double k, double h, double dt, int steps, StencilKernel kernel) {
    integrate_on_gpu(f, nx, ny, nz, k, h, dt, steps, kernel);
}
int solve(float* f, int nx, int ny, int nz, double k, double h, double tmax, StencilKernel kernel) {
    return solve_on_gpu(f, nx, ny, nz, k, h, tmax, kernel);
}
int solve(double* f, int nx, int ny, int nz, double k, double h, double tmax, StencilKernel kernel) {
    return solve_on_gpu(f, nx, ny, nz, k, h, tmax, kernel);
}

}  // namespace stencil3d
