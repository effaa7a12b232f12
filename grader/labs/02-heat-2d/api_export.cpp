// Compiled into every lab 02 solution library (student, reference, planted bugs): exports the
// functions of heat_2d.h as one table the grader loads at run time.
#include "api.h"
#include "heat_2d.h"

namespace {

static_assert(int(heat_2d::StepKernel::naive) == kNaiveKernel && int(heat_2d::StepKernel::tiled) == kTiledKernel);

void integrate(float* f, int nx, int ny, double k, double h, double dt, int steps, int kernel) {
    heat_2d::integrate(f, nx, ny, k, h, dt, steps, heat_2d::StepKernel(kernel));
}

int solve(float* f, int nx, int ny, double k, double h, double tmax, int kernel) {
    return heat_2d::solve(f, nx, ny, k, h, tmax, heat_2d::StepKernel(kernel));
}

const Heat2dApi table{{"02-heat-2d"},       &heat_2d::launch_step_naive, &heat_2d::launch_step_tiled,
                      &heat_2d::launch_boundary, &heat_2d::choose_dt,   &integrate,
                      &solve};

}  // namespace

GPULAB_EXPORT_LAB_API(table)
