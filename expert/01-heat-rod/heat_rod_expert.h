// Lab 01's expert kernel (instructor-only, never shipped to students): the fastest honest FTCS step we
// can write, timed on the roofline report as "what this GPU can do". Not a bar for students' points.
#pragma once

namespace expert {

// Same contract as heat_rod::launch_step (labs/01-heat-rod/heat_rod.h): for i = 1 .. M-2 only,
//     out[i] = in[i] + r * (in[i+1] - 2*in[i] + in[i-1]);
// d_out[0] and d_out[M-1] are left untouched. M >= 3; d_in, d_out: two different device arrays of M
// floats. Launches on the default stream and returns without synchronizing; allocates nothing.
void launch_rod_step(const float* d_in, float* d_out, int M, float r);

}  // namespace expert
