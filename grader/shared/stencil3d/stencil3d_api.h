// The table of entry points every 3D stencil lab (04, 05, 06) exports from its solution libraries,
// filled by grader/labs/<lab>/api_export.cpp. One table for the three labs: each fills the kernels it
// has and leaves the others null, so one set of checks, one speed test and one progression table
// serve all three (and a lab's report can time another lab's reference kernels beside the student's).
#pragma once

#include "gpulab/solution.h"
#include "stencil3d.h"

#include <string>

namespace stencil3d_grading {

template <typename T>
using Coeffs = stencil3d::Coefficients<T>;

template <typename T>
using StencilLaunch = void (*)(const T* d_in, T* d_out, int nx, int ny, int nz, Coeffs<T> c);

// One technique's launch function, in both precisions.
struct StencilLaunchers {
    StencilLaunch<float> f32 = nullptr;
    StencilLaunch<double> f64 = nullptr;
    template <typename T>
    StencilLaunch<T> get() const {
        if constexpr (sizeof(T) == sizeof(float)) return f32;
        else return f64;
    }
};

// The progression the three labs teach, in order.
enum class Technique : int { naive = 0, tiled = 1, coarsened = 2, register_tiled = 3 };
constexpr int kTechniques = 4;

// Lab 04's host code: a 3D heat solver. `kernel` is 0 (naive) or 1 (tiled), StencilKernel's values.
struct HeatSolver {
    double (*choose_dt)(double k, double h, double tmax) = nullptr;
    void (*integrate_f32)(float* f, int nx, int ny, int nz, double k, double h, double dt, int steps, int kernel) = nullptr;
    void (*integrate_f64)(double* f, int nx, int ny, int nz, double k, double h, double dt, int steps, int kernel) = nullptr;
    int (*solve_f32)(float* f, int nx, int ny, int nz, double k, double h, double tmax, int kernel) = nullptr;
    int (*solve_f64)(double* f, int nx, int ny, int nz, double k, double h, double tmax, int kernel) = nullptr;
};

struct Stencil3dApi {
    gpulab::LabApiHeader header;
    StencilLaunchers kernels[kTechniques];  // by Technique; null where the lab has no such kernel
    HeatSolver solver;                      // lab 04 only
    const StencilLaunchers& of(Technique t) const { return kernels[int(t)]; }
};

// The table of a lab that teaches one kernel (labs 05 and 06): `launch` under its technique, the rest null.
inline Stencil3dApi one_kernel_table(const char* lab, Technique t, StencilLaunchers launch) {
    Stencil3dApi table{{lab}, {}, {}};
    table.kernels[int(t)] = launch;
    return table;
}

// A one-kernel lab's api_export.cpp: exports `launch` (its launch function, a template of both precisions) as
// `technique`'s kernel of `lab`.
#define STENCIL3D_EXPORT_ONE_KERNEL(lab, technique, launch)                                                 \
    namespace {                                                                                             \
    const stencil3d_grading::Stencil3dApi table = stencil3d_grading::one_kernel_table(lab, technique, {&launch, &launch}); \
    }                                                                                                       \
    GPULAB_EXPORT_LAB_API(table)

// "naive", "tiled", "coarsened", "register-tiled".
const char* technique_name(Technique t);
// The launch function a student writes for it: "launch_stencil_tiled".
const char* launcher_name(Technique t);
// The lab whose reference has it: "04-stencil3d-tiling".
const char* lab_of(Technique t);

// The expert 3D stencil (expert/stencil3d, instructor-only) the three labs' roofline reports time beside the
// student's kernels: grader/shared/stencil3d/expert_export.cpp fills it in each lab's expert library.
struct Stencil3dExpertApi {
    gpulab::LabApiHeader header;  // lab "<lab>/expert"
    StencilLaunchers stencil;
};

}  // namespace stencil3d_grading
