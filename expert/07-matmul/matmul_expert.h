// Instructor-only expert kernel for lab 07: the fastest honest FP32 matrix multiply we can write, shown on
// the student's roofline as "what this GPU can do". Not shipped to students; not a bar for points.
#pragma once

namespace expert {

// C = A * B with the contract of matmul::launch_matmul_tiled (labs/07-matmul/matmul.h): A is M x K, B is
// K x N, C is M x N, all row-major and packed, any M, N, K >= 1. Plain FP32 FMA, float accumulation (no
// tensor cores, no TF32). Launches on the default stream and returns without synchronizing; allocates and
// copies nothing.
void launch_sgemm(const float* d_a, const float* d_b, float* d_c, int m, int n, int k);

}  // namespace expert
