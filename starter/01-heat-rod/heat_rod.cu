// Lab 01: heat in a 1D rod. This is the file you edit.
//
// Work through the TODO(lab-1) markers in order; labs/01-heat-rod/README.md explains each one.
// Check your progress at any time with:   make grade LAB=01-heat-rod
#include "heat_rod.h"

#include <cmath>
#include <string>
#include <utility>

namespace heat_rod {

// Turns a failed CUDA call into an exception the grader reports with the call's name.
void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(status));
    }
}

// TODO(lab-1) step 1: one FTCS step on the interior cells 1 .. M-2.
//   out[i] = in[i] + r * (in[i+1] - 2*in[i] + in[i-1])
// Give each thread one interior cell. The grid is rounded up to whole blocks, so some threads
// have no cell: make sure they write nothing. Read only `in`, write only `out`.
__global__ void ftcs_interior(const float* in, float* out, int M, float r) {
}

// TODO(lab-1) step 2: the insulated ends, f[0] = f[1] and f[M-1] = f[M-2].
// Runs after ftcs_interior has finished, on the array it wrote.
__global__ void insulated_ends(float* f, int M) {
}

void launch_step(const float* d_in, float* d_out, int M, float r) {
    // TODO(lab-1) step 1: choose a block size, compute how many blocks cover the M-2 interior
    // cells (round up), and launch ftcs_interior with them.
}

void launch_boundary(float* d_f, int M) {
    // TODO(lab-1) step 2: launch insulated_ends. How many threads does it need?
}

double choose_dt(double k, double dx, double tmax) {
    // TODO(lab-1) step 3: the largest dt with r = k*dt/dx^2 <= 1/2 that splits tmax into a whole
    // number of steps. Mind the formula: dt = r * dx^2 / k.
    throw std::logic_error("TODO(lab-1) step 3: choose_dt is not written yet");
}

void integrate(float* f, int M, double k, double dx, double dt, int steps) {
    // TODO(lab-1) step 4: refuse an unstable dt (throw std::invalid_argument with the value of r),
    // then: two device buffers, copy f in, `steps` times { launch_step; launch_boundary; swap },
    // copy the result back into f, free both buffers. Use check(...) on every CUDA call.
    throw std::logic_error("TODO(lab-1) step 4: integrate is not written yet");
}

int solve(float* f, int M, double k, double dx, double tmax) {
    // TODO(lab-1) step 5: pick dt with choose_dt, work out the number of steps, integrate,
    // and return the number of steps.
    throw std::logic_error("TODO(lab-1) step 5: solve is not written yet");
}

}  // namespace heat_rod
