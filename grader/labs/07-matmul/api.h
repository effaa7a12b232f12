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

// The lab's expert kernel (expert/07-matmul, instructor-only), timed beside the student's and cuBLAS on the
// roofline report: grader/labs/07-matmul/expert_export.cpp fills it in the expert library.
struct MatmulExpertApi {
    gpulab::LabApiHeader header;  // lab "07-matmul/expert"
    MatmulLaunch sgemm;
};
