// The heat-equation tests every 3D stencil lab runs on its student's kernel: the grader itself iterates
// the kernel with c0 = 1 - 6r, c1..c6 = r and a fixed boundary, and checks what FTCS theory promises.
#pragma once

#include "stencil_check.h"

namespace stencil3d_grading {

// Stability.MaximumPrinciple: at r = 1/6 a long run stays within the range of its start (every new
// value is a weighted average of old ones) and ends where the oracle's run of the same start ends (a
// run that froze would keep its range too).
void check_maximum_principle(Technique t, Precision p);

// Stability.SineModeDecayRate: a discrete sine mode decays by exactly the FTCS factor
// 1 - 4r(sin^2(pi mx / 2(nx-1)) + ...) each step.
void check_sine_decay(Technique t, Precision p);

// Stability.GrowsAboveBound: just above r = 1/6 the highest mode grows by |FTCS factor| > 1 each step.
void check_growth_above_bound(Technique t, Precision p);

// Report.PrecisionDrift: float's and double's error against the oracle after more and more sweeps.
void report_precision_drift(Technique t);

// Parameters for tests run once per kernel and precision: "tiled_float".
struct KernelPrecision {
    Technique technique;
    Precision precision;
};
std::string kernel_precision_name(const testing::TestParamInfo<KernelPrecision>& info);

}  // namespace stencil3d_grading
