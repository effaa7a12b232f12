// A lab's expert kernels: instructor-only (expert/<dir>, never in a student release), the fastest honest
// kernels we could write for the lab's timed work. The roofline report times them beside the student's, as
// "what this GPU can do"; they are never a bar for points. gpulab-grade hands the expert library over as the
// companion "<lab>/expert" (grader/cmake/GpulabLab.cmake builds it from lab.json "expert").
#pragma once

#include "gpulab/solution.h"

#include <exception>
#include <string>

namespace gpulab {

// Why a build has no expert kernel: the roofline's and the GPU profile's one line where it has none.
inline constexpr const char* kNoExpertInThisBuild =
    "no expert kernel in this build: the expert kernels are the course staff's, and a student release has none";

// The lab's expert table, or nullptr with `why` where this build has none (a student release, a build
// without CUDA) or it does not load.
template <typename Api>
const Api* expert_api(const std::string& lab, std::string* why) {
    if (!companion_handed_over(lab + "/expert")) {
        *why = kNoExpertInThisBuild;
        return nullptr;
    }
    try {
        return static_cast<const Api*>(load_companion_api(lab + "/expert"));
    } catch (const std::exception& e) {
        *why = std::string("the expert kernel did not load (a problem of the grader's build, not yours): ") + e.what();
        return nullptr;
    }
}

}  // namespace gpulab
