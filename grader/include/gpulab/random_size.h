// A problem size drawn once per run: the technique checks measure the listed sizes and one nobody can
// predict, so a launch that is honest only at the sizes a check is known to use is seen.
#pragma once

#include "gpulab/lab_config.h"

#include <string>
#include <vector>

namespace gpulab {

// One size between spec["min"] and spec["max"] (each a list with one entry per dimension), drawn from the
// run's seed and the current test's name: GPULAB_SEED reproduces it.
std::vector<int> random_size_for_run(const Json& spec);

}  // namespace gpulab
