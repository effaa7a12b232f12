// Lab 02's expert kernel (instructor-only, never shipped to students): the fastest honest 5-point FTCS
// step we can write, timed on the roofline report as "what this GPU can do". Not a bar for students' points.
#pragma once

namespace expert {

// Same contract as heat_2d::launch_step_naive (labs/02-heat-2d/heat_2d.h): the grid is (nx+2) x (ny+2)
// floats, row pitch nx+2, cell (i, j) at j*(nx+2)+i; for every interior cell 1 <= i <= nx, 1 <= j <= ny,
//     out(i,j) = in(i,j) + r * (in(i-1,j) + in(i+1,j) + in(i,j-1) + in(i,j+1) - 4*in(i,j)).
// Writes only the interior of d_out (its ghost ring and corners are left untouched). nx, ny >= 1.
// Launches on the default stream and returns without synchronizing; allocates nothing.
void launch_heat2d_step(const float* d_in, float* d_out, int nx, int ny, float r);

}  // namespace expert
