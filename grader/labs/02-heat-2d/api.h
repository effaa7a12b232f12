// Lab 02's table of entry points, filled by api_export.cpp inside each compiled solution.
// The grader does not see heat_2d.h, so the kernel choice crosses as an int: 0 naive, 1 tiled
// (heat_2d::StepKernel's values).
#pragma once

#include "gpulab/solution.h"

struct Heat2dApi {
    gpulab::LabApiHeader header;
    void (*launch_step_naive)(const float* d_in, float* d_out, int nx, int ny, float r);
    void (*launch_step_tiled)(const float* d_in, float* d_out, int nx, int ny, float r);
    void (*launch_boundary)(float* d_f, int nx, int ny);
    double (*choose_dt)(double k, double h, double tmax);
    void (*integrate)(float* f, int nx, int ny, double k, double h, double dt, int steps, int kernel);
    int (*solve)(float* f, int nx, int ny, double k, double h, double tmax, int kernel);
};

constexpr int kNaiveKernel = 0;
constexpr int kTiledKernel = 1;

// The lab's expert kernel (expert/02-heat-2d, instructor-only), timed beside the student's on the roofline
// report: grader/labs/02-heat-2d/expert_export.cpp fills it in the expert library.
struct Heat2dExpertApi {
    gpulab::LabApiHeader header;  // lab "02-heat-2d/expert"
    void (*launch_step)(const float* d_in, float* d_out, int nx, int ny, float r);
};
