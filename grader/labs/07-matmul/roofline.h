// Lab 07's roofline (Report.Roofline): the student's timed kernels, the reference's, the instructor's expert
// SGEMM and cuBLAS at N = lab.json cublas.size, on the roofline of this GPU (gpulab/roofline.h). A product
// costs 2 M N K flops; its compulsory traffic is A and B read once and C written once: 4 (MK + KN + MN) bytes,
// so at N = 4096 it sits far right of the ridge, under the FP32 peak.
#pragma once

namespace matmul_grading {

void report_roofline();

}  // namespace matmul_grading
