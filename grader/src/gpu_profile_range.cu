// The profile's NVTX ranges (gpu_profile.h): each timed launch runs inside a push/pop range named "gpulab launch <i>",
// so ncu (--nvtx) prints the range beside every kernel the launch ran, and profiles no kernel outside one
// (--nvtx-include). NVTX is header-only (the CUDA toolkit's nvtx3): without a tool attached its calls do nothing.
#include <nvtx3/nvToolsExt.h>

#include <string>

namespace gpulab {

void push_gpu_profile_range(std::size_t index) {
    const std::string name = "gpulab launch " + std::to_string(index);
    nvtxRangePushA(name.c_str());
}

void pop_gpu_profile_range() { nvtxRangePop(); }

}  // namespace gpulab
