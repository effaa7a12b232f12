// Lab 07's comparison study (the seed's Table 1 and exercise 4.1, on this machine): time and TFLOP/s of
// C = A * B for square N, on the CPU (serial, serial on Bt, OpenMP on every core) and on the GPU (the
// student's naive, naive-on-Bt, tiled, transpose and tiled-on-Bt kernels, and cuBLAS). A report: no points.
// It writes matmul_study.csv, prints a table, and draws a log-log plot from the CSV.
#pragma once

namespace matmul_grading {

// Report.ComparisonStudy.
void report_comparison_study();

}  // namespace matmul_grading
