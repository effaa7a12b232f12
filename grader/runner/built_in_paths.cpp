#include "built_in_paths.h"

// grader/runner/CMakeLists.txt defines both for this file alone.
#ifndef GPULAB_CALL_POLICY_PATH
#error "built_in_paths.cpp is compiled with GPULAB_CALL_POLICY_PATH (grader/runner/CMakeLists.txt sets it)"
#endif
#ifndef GPULAB_DEFAULT_BUILD_DIR
#define GPULAB_DEFAULT_BUILD_DIR "build"
#endif

namespace gpulab::runner {

const char* call_policy_path() { return GPULAB_CALL_POLICY_PATH; }
const char* default_build_dir() { return GPULAB_DEFAULT_BUILD_DIR; }

}  // namespace gpulab::runner
