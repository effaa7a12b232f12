// Lab 01's table of entry points, filled by api_export.cpp inside each compiled solution.
#pragma once

#include "gpulab/solution.h"

struct HeatRodApi {
    gpulab::LabApiHeader header;
    void (*launch_step)(const float* d_in, float* d_out, int M, float r);
    void (*launch_boundary)(float* d_f, int M);
    double (*choose_dt)(double k, double dx, double tmax);
    void (*integrate)(float* f, int M, double k, double dx, double dt, int steps);
    int (*solve)(float* f, int M, double k, double dx, double tmax);
};

// The lab's expert kernel (expert/01-heat-rod, instructor-only), timed beside the student's on the roofline
// report: grader/labs/01-heat-rod/expert_export.cpp fills it in the expert library.
struct HeatRodExpertApi {
    gpulab::LabApiHeader header;  // lab "01-heat-rod/expert"
    void (*launch_step)(const float* d_in, float* d_out, int M, float r);
};
