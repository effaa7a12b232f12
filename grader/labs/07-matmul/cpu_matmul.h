// The CPU side of lab 07's comparison study: the seed's triple loop, the same loop on a transposed B
// (exercise 4.1), and the loop spread over every core with OpenMP.
#pragma once

#include <vector>

namespace matmul_cpu {

// C = A * B, all n x n, row-major: for i, for j, for k (Algorithm 1 of the seed, as written).
void serial(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c, int n);
// The same on Bt = B^T: the inner loop walks a row of A and a row of Bt, both contiguous.
void serial_bt(const std::vector<float>& a, const std::vector<float>& bt, std::vector<float>& c, int n);
// serial(), its rows shared among OpenMP threads.
void openmp(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c, int n);

int openmp_threads();  // 1 where the grader was built without OpenMP

}  // namespace matmul_cpu
