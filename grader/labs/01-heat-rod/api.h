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
