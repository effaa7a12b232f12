// Lab 02's timed tests: each step kernel against the reference's of the same technique in one run
// (Speed.NaiveThroughput, Speed.TiledThroughput, with the tiled/naive ratios beside), and both on the roofline
// beside the reference's and the expert's (Report.Roofline).
#pragma once

#include "gpulab/gpu_profile.h"

#include <vector>

namespace heat_2d_grading {

void check_step_speed(int kernel);
void report_roofline();
// The expert's step beside the timed TiledStep launch in the GPU profile (Report.GpuProfile).
gpulab::TimedLaunchName expert_beside_launch();

}  // namespace heat_2d_grading
