// The grader of lab 06 (3D seven-point stencil, register tiling). Points, sizes and tolerances
// come from labs/06-stencil3d-register-tiling/lab.json; the handout describes every test by the same name.
// Every check is shared with labs 04 and 05 (grader/shared/stencil3d/), and so are stability and the reports
// (shared_tests.cpp): the cases below are lab 06's names for them.
#include "one_technique_tests.h"

namespace {

STENCIL3D_ONE_TECHNIQUE_TESTS(stencil3d_grading::Technique::register_tiled, RegisterTiledStencil, RegisterTiling,
                              ComputesFromSharedPlane, RegisterTiledThroughput);

}  // namespace
