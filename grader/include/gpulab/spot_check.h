// Checking a large output on a sample of its cells: after every timed launch the grader cannot afford the
// whole oracle, so it reads a few hundred cells back from the device and recomputes each in double from
// the inputs it was given (fresh_inputs.h knows every input on the host without copying it back).
#pragma once

#include "gpulab/fresh_inputs.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpulab {

struct CellExpectation {
    double value = 0;
    double allowed = 0;  // the largest absolute error the cell may have
};

// `count` cells drawn from `seed` among 0 ... total-1 for which `eligible` holds (every one when it is
// empty), after the cells in `always` (corners and edges, say).
std::vector<std::size_t> pick_cells(std::size_t total, int count, std::uint64_t seed,
                                    const std::function<bool(std::size_t)>& eligible = {},
                                    std::vector<std::size_t> always = {});

// "" when every value is within its allowed error of what `expected` says, else how many are not and the
// first few: "3 of 260 cells checked are wrong, e.g. (12, 7) = 0.4 where 0.51 was expected".
std::string judge_cells(const std::vector<std::size_t>& cells, const std::vector<double>& values,
                        const std::function<CellExpectation(std::size_t)>& expected,
                        const std::function<std::string(std::size_t)>& name);

// The two together: the cells' values read from the device buffer, then judged.
template <typename T>
std::string spot_check_device(const T* d_out, const std::vector<std::size_t>& cells,
                              const std::function<CellExpectation(std::size_t)>& expected,
                              const std::function<std::string(std::size_t)>& name) {
    return judge_cells(cells, gather_cells(d_out, cells), expected, name);
}

}  // namespace gpulab
