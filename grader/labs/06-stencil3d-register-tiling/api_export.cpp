// Compiled into every lab 06 solution library (student, reference, planted bugs): exports the functions
// of stencil3d_register_tiling.h as the 3D stencil labs' table (grader/shared/stencil3d/stencil3d_api.h).
#include "stencil3d_api.h"
#include "stencil3d_register_tiling.h"

STENCIL3D_EXPORT_ONE_KERNEL("06-stencil3d-register-tiling", stencil3d_grading::Technique::register_tiled,
                            stencil3d::launch_stencil_register_tiled)
