// Lab 07's correctness check: a kernel's C against the oracle, element by element with a tolerance that
// grows with K, and what the wrong elements say about the bug.
#pragma once

#include "matmul_grading.h"
#include "oracle.h"

#include <functional>
#include <string>

namespace matmul_grading {

struct ProductReport {
    bool ok = false;
    std::size_t wrong = 0, unwritten = 0;
    double worst = 0;     // the largest |error| / allowed over written elements (ok: <= 1)
    bool edge_only = false;  // every wrong element lies in a partial tile at the bottom or right edge
    std::string message;  // for a failed case: counts, the first wrong elements, the likely cause
};

// `first` ran on C poisoned with NaN, `second` (the same launch again) on C filled with
// gpulab::second_fill(): an element is "never written" only if it kept each fill; elements written
// in both runs must agree bit for bit (a kernel with a race does not). `rerun(fill)` runs the same launch
// again for a probe (C zeroed: a kernel that adds into C instead of storing its sum is right then).
ProductReport check_product(Kernel kernel, const Shape& s, const KernelRun& first, const KernelRun& second,
                            const matmul_oracle::Product& expected, double factor,
                            const std::function<KernelRun(Fill)>& rerun);

// The launch that covers C (the one with the most threads), or nullptr where launches are not recorded.
const gpulab::RecordedLaunch* main_launch(const KernelRun& run);

// The steps of the starter a kernel belongs to, for messages: "TODO(lab-7) step 2 and 2b".
std::string todo_steps(Kernel kernel);

}  // namespace matmul_grading
