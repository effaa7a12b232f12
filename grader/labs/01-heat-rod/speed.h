// Lab 01's timed tests: the step kernel against the reference's in one run (Speed.StepThroughput), on the
// roofline beside the reference's and the expert's (Report.Roofline), and its launch at the timed size checked
// in a dry run (an instance of Step.MatchesOracle); the expert's step beside it in the GPU profile.
#pragma once

#include "gpulab/gpu_profile.h"
#include "gpulab/launch_geometry.h"

#include <vector>

namespace heat_rod_grading {

void check_step_speed();
void report_roofline();
std::vector<gpulab::GeometryCheck> timed_geometry_checks();
gpulab::TimedLaunchName expert_beside_launch();

}  // namespace heat_rod_grading
