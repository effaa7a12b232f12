// How gpulab-cu2cpp begins its message about a CUDA feature CPU execution mode does not run (grader/cpu/README.md):
// admission tells such a build failure apart from a compile error by it, and the class feedback reads summaries
// written before that verdict travelled whole by it too.
#pragma once

namespace gpulab {

inline constexpr const char* kCpuModeUnsupportedMarker = "gpulab CPU execution mode:";

}  // namespace gpulab
