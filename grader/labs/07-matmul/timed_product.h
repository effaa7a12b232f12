// What every timed product of lab 07 is held to (gpulab/timed_work.h): fresh A and B written on the device
// before each sample, a few hundred elements of C recomputed in double after it, the FP32 peak as the floor,
// and the kernels the student's launch ran at the technique checks' shape as the only ones allowed.
#pragma once

#include "matmul_grading.h"

#include "gpulab/guarded_array.h"
#include "gpulab/timed_work.h"

namespace matmul_grading {

// The device buffers of one timed product: A, and B or Bt as the kernel takes it.
struct TimedOperands {
    float* a = nullptr;
    float* b = nullptr;  // B (k x n), or Bt (n x k) for a kernel that takes it
    float* c = nullptr;  // the student's C
};

// The rules for timing `kernel` of the student's on an m x n x k product in `operands`. Runs the student's
// launch at the technique shape to approve its kernels; the deadline is set by the first timed-size launch
// (gpulab::first_launch_under_deadline).
// `run` times another launch function in the student's place (the expert's, on the roofline; `name` names it).
gpulab::TimedWork timed_product(Kernel kernel, const Shape& s, const TimedOperands& operands,
                                MatmulLaunch run = nullptr, const std::string& name = "");

}  // namespace matmul_grading
