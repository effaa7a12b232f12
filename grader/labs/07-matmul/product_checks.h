// One product kernel against the oracle at one shape (Naive/Tiled/NaiveBt/TiledBt.MatchesOracle).
#pragma once

#include "matmul_grading.h"

namespace matmul_grading {

// Runs `kernel` twice on guarded buffers (poisoned, then pre-filled), checks C against the double-precision oracle
// and that nothing outside C changed; a failure names the wrong elements and, where tiles stick out of the matrix,
// whether whole tiles come out right.
void check_kernel(Kernel kernel, const Shape& s);

}  // namespace matmul_grading
