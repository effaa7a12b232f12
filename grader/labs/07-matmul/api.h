// Lab 07's table of entry points, filled by api_export.cpp inside each compiled solution.
#pragma once

#include "gpulab/solution.h"

using MatmulLaunch = void (*)(const float* d_a, const float* d_b, float* d_c, int m, int n, int k);

struct MatmulApi {
    gpulab::LabApiHeader header;
    MatmulLaunch naive;
    MatmulLaunch tiled;
    void (*transpose)(const float* d_in, float* d_out, int rows, int cols);
    MatmulLaunch naive_bt;  // B given transposed (N x K)
    MatmulLaunch tiled_bt;
};
