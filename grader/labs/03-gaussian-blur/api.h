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
