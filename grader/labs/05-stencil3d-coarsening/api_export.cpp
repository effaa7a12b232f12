// Compiled into every lab 05 solution library (student, reference, planted bugs): exports the functions
// of stencil3d_coarsening.h as the 3D stencil labs' table (grader/shared/stencil3d/stencil3d_api.h).
#include "stencil3d_api.h"
#include "stencil3d_coarsening.h"

STENCIL3D_EXPORT_ONE_KERNEL("05-stencil3d-coarsening", stencil3d_grading::Technique::coarsened,
                            stencil3d::launch_stencil_coarsened)
