// Compiled into every lab 05 solution library (student, reference, planted bugs): exports the functions
// of stencil3d_coarsening.h as the 3D stencil labs' table (grader/shared/stencil3d/stencil3d_api.h).
#include "stencil3d_api.h"
#include "stencil3d_coarsening.h"

namespace {

const stencil3d_grading::Stencil3dApi table = stencil3d_grading::one_kernel_table(
    "05-stencil3d-coarsening", stencil3d_grading::Technique::coarsened,
    {&stencil3d::launch_stencil_coarsened, &stencil3d::launch_stencil_coarsened});

}  // namespace

GPULAB_EXPORT_LAB_API(table)
