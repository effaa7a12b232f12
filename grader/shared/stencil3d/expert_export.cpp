// Compiled into the expert library of each 3D stencil lab (04, 05, 06: one expert kernel, expert/stencil3d):
// its table for the lab's roofline report. GPULAB_EXPERT_OF names the lab ("05-stencil3d-coarsening/expert").
#include "stencil3d_api.h"
#include "stencil3d_expert.h"

namespace {
using stencil3d_grading::Stencil3dExpertApi;
const Stencil3dExpertApi table{{GPULAB_EXPERT_OF},
                               {static_cast<stencil3d_grading::StencilLaunch<float>>(&expert::launch_stencil3d),
                                static_cast<stencil3d_grading::StencilLaunch<double>>(&expert::launch_stencil3d)}};
}  // namespace

GPULAB_EXPORT_LAB_API(table)
