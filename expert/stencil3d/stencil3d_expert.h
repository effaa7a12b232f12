// The expert 3D seven-point stencil (instructor-only, never shipped to students): the fastest honest
// kernel we have for labs 04, 05 and 06's timed computation, shown on their roofline reports as "what this
// GPU can do". Same contract as the labs' launch_stencil_naive (labs/04-stencil3d-tiling/stencil3d_tiling.h):
// every interior cell of d_out from d_in (two distinct device arrays of nx*ny*nz values, layout and weights
// as in labs/common/stencil3d.h), boundary never written, any nx, ny, nz >= 3, any element-aligned pointer.
// Launches on the default stream and returns without synchronizing.
#pragma once

#include "stencil3d.h"

namespace expert {

void launch_stencil3d(const float* d_in, float* d_out, int nx, int ny, int nz, stencil3d::Coefficients<float> c);
void launch_stencil3d(const double* d_in, double* d_out, int nx, int ny, int nz, stencil3d::Coefficients<double> c);

}  // namespace expert
