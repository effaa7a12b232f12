// Lab 02: heat on an insulated square. This is the file you edit.
//
// Work through the TODO(lab-2) markers in order; labs/02-heat-2d/README.md explains each one.
// Check your progress at any time with:   make grade LAB=02-heat-2d
//
// Reminder of the layout (heat_2d.h has the details): cell (i, j) of the (nx+2) x (ny+2) array is at
// index j * (nx + 2) + i; the interior is 1 <= i <= nx, 1 <= j <= ny; the rest is the ghost ring.
#include "heat_2d.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace heat_2d {

// Turns a failed CUDA call into an exception the grader reports with the call's name.
void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(status));
    }
}

// TODO(lab-2) step 1: one FTCS step, one interior cell per thread.
//   out(i,j) = in(i,j) + r * (in(i-1,j) + in(i+1,j) + in(i,j-1) + in(i,j+1) - 4*in(i,j))
// Use a 2D grid of 2D blocks: x (the fast index, threadIdx.x) along a row, y across rows. The grid is
// rounded up to whole blocks, so some threads have no cell: they must write nothing.
// Read only `in`, write only the interior of `out`.
__global__ void ftcs_naive(const float* in, float* out, int nx, int ny, float r) {
}

// TODO(lab-2) step 6: the same step from a shared-memory tile.
// 1. Declare a __shared__ tile big enough for your block's cells plus a one-cell halo on each side.
// 2. Each thread copies its own cell into the tile; threads on the tile's edges also copy the halo
//    cell beyond them (mind tiles cut short by the right and top edges of the grid).
// 3. __syncthreads(): nobody may read the tile before everybody has written it.
// 4. Compute the step from the tile only, and write the interior cells of `out`.
__global__ void ftcs_tiled(const float* in, float* out, int nx, int ny, float r) {
}

// TODO(lab-2) step 2: the insulated walls. Each edge ghost copies the interior cell next to it:
//   (0,j) = (1,j), (nx+1,j) = (nx,j) for 1 <= j <= ny;  (i,0) = (i,1), (i,ny+1) = (i,ny) for 1 <= i <= nx.
// Write nothing else (not the four corners). One kernel or two, as you like.
__global__ void insulated_walls(float* f, int nx, int ny) {
}

void launch_step_naive(const float* d_in, float* d_out, int nx, int ny, float r) {
    // TODO(lab-2) step 1: choose a 2D block (e.g. 32 x 8), compute how many blocks cover the
    // nx x ny interior in each direction (round up), and launch ftcs_naive with them.
}

void launch_step_tiled(const float* d_in, float* d_out, int nx, int ny, float r) {
    // TODO(lab-2) step 6: launch ftcs_tiled; its block shape must match the tile it declares.
}

void launch_boundary(float* d_f, int nx, int ny) {
    // TODO(lab-2) step 2: launch insulated_walls (or your two edge kernels). How many threads?
}

double choose_dt(double k, double h, double tmax) {
    // TODO(lab-2) step 3: the largest dt with r = k*dt/h^2 <= 1/4 that splits tmax into a whole
    // number of steps. Mind the 2D bound: 1/4, not the rod's 1/2.
    throw std::logic_error("TODO(lab-2) step 3: choose_dt is not written yet");
}

void integrate(float* f, int nx, int ny, double k, double h, double dt, int steps, StepKernel kernel) {
    // TODO(lab-2) step 4: refuse an unstable dt (throw std::invalid_argument with the value of r),
    // then: two device buffers of (nx+2)*(ny+2) floats, copy f into BOTH, `steps` times
    // { step kernel (naive or tiled, as `kernel` says); launch_boundary; swap }, copy the result
    // back into f, free both buffers. Use check(...) on every CUDA call.
    throw std::logic_error("TODO(lab-2) step 4: integrate is not written yet");
}

int solve(float* f, int nx, int ny, double k, double h, double tmax, StepKernel kernel) {
    // TODO(lab-2) step 5: pick dt with choose_dt, work out the number of steps, integrate,
    // and return the number of steps.
    throw std::logic_error("TODO(lab-2) step 5: solve is not written yet");
}

}  // namespace heat_2d
