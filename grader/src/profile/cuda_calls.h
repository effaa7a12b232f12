// The CUDA driver calls the profile makes, through the runtime's entry points (libcupti and the grader need no
// driver to load: a machine without a GPU starts these graders too), and CUPTI's errors in words. Defined in
// sample_counters.cpp.
#pragma once

#include <cuda.h>
#include <cupti_result.h>

#include <string>

namespace gpulab {

CUcontext current_context();      // the calling thread's context; throws std::runtime_error where there is none
CUresult synchronize_context();   // cuCtxSynchronize: a runtime wait would be recorded as the launch's own
std::string cupti_text(CUptiResult r);  // "CUPTI_ERROR_NOT_SUPPORTED ... (27)"

}  // namespace gpulab
