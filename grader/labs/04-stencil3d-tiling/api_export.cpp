// Compiled into every lab 04 solution library (student, reference, planted bugs): exports the functions
// of stencil3d_tiling.h as the 3D stencil labs' table (grader/shared/stencil3d/stencil3d_api.h).
#include "stencil3d_api.h"
#include "stencil3d_tiling.h"

namespace {

using namespace stencil3d_grading;

static_assert(int(stencil3d::StencilKernel::naive) == 0 && int(stencil3d::StencilKernel::tiled) == 1);

template <typename T>
void integrate(T* f, int nx, int ny, int nz, double k, double h, double dt, int steps, int kernel) {
    stencil3d::integrate(f, nx, ny, nz, k, h, dt, steps, stencil3d::StencilKernel(kernel));
}

template <typename T>
int solve(T* f, int nx, int ny, int nz, double k, double h, double tmax, int kernel) {
    return stencil3d::solve(f, nx, ny, nz, k, h, tmax, stencil3d::StencilKernel(kernel));
}

Stencil3dApi make_table() {
    Stencil3dApi table{{"04-stencil3d-tiling"}, {}, {}};
    table.kernels[int(Technique::naive)] = {&stencil3d::launch_stencil_naive, &stencil3d::launch_stencil_naive};
    table.kernels[int(Technique::tiled)] = {&stencil3d::launch_stencil_tiled, &stencil3d::launch_stencil_tiled};
    table.solver = {&stencil3d::choose_dt, &integrate<float>, &integrate<double>, &solve<float>, &solve<double>};
    return table;
}

const Stencil3dApi table = make_table();

}  // namespace

GPULAB_EXPORT_LAB_API(table)
