// Speed of the 3D stencil kernels: each student kernel against the reference kernel of the same
// technique, interleaved in one run (DESIGN.md's rules), and the progression table the three labs teach.
#pragma once

#include "stencil_check.h"

#include "gpulab/gpu_profile.h"
#include "gpulab/launch_geometry.h"

namespace stencil3d_grading {

// lab.json "speed.cases": [[nx, ny, nz, "float" | "double"], ...].
std::vector<StencilCase> speed_cases();

// Speed.<Technique>Throughput: checks the output at this size, then times the student's kernel against
// the reference's, and holds it to lab.json speed.min_fraction_of_reference. Reports ms, GB/s,
// GStencil/s, % of a copy, shared memory and registers.
void check_speed(Technique t, const StencilCase& c);

// The student's kernel of technique `t` at every timed size, as instances of `suite`.MatchesOracle checked in
// a dry run (gpulab/launch_geometry.h).
std::vector<gpulab::GeometryCheck> timed_geometry_checks(Technique t, const char* suite);

// The expert stencil in the GPU profile (Report.GpuProfile), beside the student's timed launch of `suite` at the
// roofline's size (the first float speed case).
gpulab::TimedLaunchName expert_beside_launch(const char* suite);

// A lab's timed launches, registered once from its test file: each technique's kernel at the timed sizes as
// instances of its suite's MatchesOracle (a dry run with the speed test's draws: with_timed_draws), and the expert
// beside `expert_beside`'s launch in the GPU profile, where the build has the expert. Returns true, for the
// initializer of a static.
struct TimedSuite {
    Technique technique;
    const char* suite;  // "TiledStencil"
};
bool register_timed_launches(std::vector<TimedSuite> suites, const char* expert_beside);

// Report.Progression: naive -> tiled -> coarsened -> register-tiled at lab.json "progression" sizes,
// the student's kernels where this lab has them and every technique's reference (another lab's, for
// techniques this lab does not teach), all timed in one interleaved run.
void report_progression();

// Report.Roofline: the lab's kernels, the reference's of the same techniques and the instructor's expert stencil
// on the roofline of this GPU (gpulab/roofline.h) at the first speed case, in float.
void report_roofline();

}  // namespace stencil3d_grading
