// Lab 03's timed tests: each blur kernel against the reference's of the same technique in one run
// (Speed.NaiveThroughput, Speed.TiledThroughput), and both on the roofline beside the reference's and the
// expert's (Report.Roofline).
#pragma once

#include "blur_grading.h"

#include "gpulab/gpu_profile.h"

#include <vector>

namespace gaussian_blur_grading {

void check_speed(Kernel k);
void report_roofline();
// The expert's blur beside the timed Tiled launch in the GPU profile (Report.GpuProfile).
gpulab::TimedLaunchName expert_beside_launch();

}  // namespace gaussian_blur_grading
