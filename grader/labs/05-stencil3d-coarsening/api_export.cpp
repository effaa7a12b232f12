// Compiled into every lab 05 solution library (student, reference, planted bugs): exports the functions
// of stencil3d_coarsening.h as the 3D stencil labs' table (grader/shared/stencil3d/stencil3d_api.h).
#include "stencil3d_api.h"
#include "stencil3d_coarsening.h"

namespace {

using namespace stencil3d_grading;

Stencil3dApi make_table() {
    Stencil3dApi table{{"05-stencil3d-coarsening"}, {}, {}};
    table.kernels[int(Technique::coarsened)] = {&stencil3d::launch_stencil_coarsened, &stencil3d::launch_stencil_coarsened};
    return table;
}

const Stencil3dApi table = make_table();

}  // namespace

GPULAB_EXPORT_LAB_API(table)
