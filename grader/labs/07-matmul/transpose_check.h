// The transpose against the exact answer (Transpose.Exact).
#pragma once

#include <vector>

namespace matmul_grading {

struct TransposeShape {
    int rows, cols;
};

std::vector<TransposeShape> transpose_shapes();  // lab.json's transpose.shapes

// launch_transpose on guarded buffers: every element moved bit for bit, nothing written outside the output, and
// a likely cause where the wrong elements form a pattern.
void check_transpose(const TransposeShape& shape);

}  // namespace matmul_grading
