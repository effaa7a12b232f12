// Lab 03's table of entry points, filled by api_export.cpp inside each compiled solution.
#pragma once

#include "gpulab/solution.h"

#include <cstdint>

struct GaussianBlurApi {
    gpulab::LabApiHeader header;
    void (*launch_blur_naive)(const std::uint8_t* d_in, std::uint8_t* d_out, int width, int height, int channels);
    void (*launch_blur_tiled)(const std::uint8_t* d_in, std::uint8_t* d_out, int width, int height, int channels);
    void (*blur_image)(const std::uint8_t* in, std::uint8_t* out, int width, int height, int channels);
};

// The lab's expert kernel (expert/03-gaussian-blur, instructor-only), timed beside the student's on the
// roofline report: grader/labs/03-gaussian-blur/expert_export.cpp fills it in the expert library.
struct GaussianBlurExpertApi {
    gpulab::LabApiHeader header;  // lab "03-gaussian-blur/expert"
    void (*launch_blur)(const std::uint8_t* d_in, std::uint8_t* d_out, int width, int height, int channels);
};
