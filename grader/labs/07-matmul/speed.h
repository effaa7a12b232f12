// Lab 07's speed tests and the cuBLAS bar: each of the student's kernels against the reference's kernel of
// the same technique, interleaved in one process; the speedup tiling teaches, held against the reference's
// naive kernel (never the student's own); and cuBLAS SGEMM beside the tiled kernel, in strict FP32.
#pragma once

#include "matmul_grading.h"

namespace matmul_grading {

// Speed.<Kernel>Throughput at N x N x N: the student's kernel, checked at this size first, against the reference's
// kernel of the same technique; a failure says why from the GPU's counters on the timed launch.
void check_speed(Kernel kernel, int n);

// Speed.TiledOverNaive: the speedup the lab teaches, measured the only fair way: the student's tiled kernel against
// the reference's naive kernel, with the reference's own tiled kernel in the same rounds. Where the reference does
// not clear the bar with margin on this GPU, the lesson does not hold here and nothing is graded (skipped).
void check_tiled_over_naive();

// Report.CublasBar: cuBLAS beside the student's tiled kernel, the bar to look up to, in TFLOP/s and as a share of
// the FP32 peak. No points; it fails only where the grader's own cuBLAS call goes wrong.
void report_cublas_bar();

}  // namespace matmul_grading
