// gpulab-grade's exit statuses, which scripts and CTest tell apart.
#pragma once

#include <initializer_list>

namespace gpulab::runner {

constexpr int kGraded = 0;                  // graded on a GPU; with --require: as required
constexpr int kRequirementNotMet = 1;       // --require / --compare-modes: not as required
constexpr int kGradedWithoutGpu = 2;        // graded, but not on a GPU (CPU execution, or host tests only)
constexpr int kUsageError = 4;              // bad options, missing build, broken reference
constexpr int kCannotCheckWithoutGpu = 77;  // --require / --compare-modes need a GPU here (CTest: skipped)

// Several labs' verdicts as one: a failure outweighs "cannot check here", which outweighs success.
inline int combine(int a, int b) {
    for (int worst : {kUsageError, kRequirementNotMet, kCannotCheckWithoutGpu})
        if (a == worst || b == worst) return worst;
    return kGraded;
}

}  // namespace gpulab::runner
