// The grader of lab 05 (3D seven-point stencil, thread coarsening in z). Points, sizes and tolerances
// come from labs/05-stencil3d-coarsening/lab.json; the handout describes every test by the same name.
// Every check is shared with labs 04 and 06 (grader/shared/stencil3d/), and so are stability and the reports
// (shared_tests.cpp): the cases below are lab 05's names for them.
#include "one_technique_tests.h"

namespace {

STENCIL3D_ONE_TECHNIQUE_TESTS(stencil3d_grading::Technique::coarsened, CoarsenedStencil, CoarsenedInZ,
                              ComputesFromSharedPlanes, CoarsenedThroughput);

}  // namespace
