// The fresh problems of a memory-bound timed launch (timed_work.h): one input array redrawn on the device
// before every sample, and a sample of output cells checked after it against an oracle that reads the
// inputs it needs from the draw itself (no copy of the input comes back).
#pragma once

#include "gpulab/fresh_inputs.h"
#include "gpulab/spot_check.h"
#include "gpulab/timed_work.h"

#include <memory>

namespace gpulab {

// What a timed launch's output must hold: which cells are checked, what each should be for a draw, and
// its name in a message ("cell (12, 7)").
struct FieldOracle {
    std::size_t cells = 0;                            // the output's cells
    std::function<bool(std::size_t)> checked;        // the cells a correct launch writes (the interior)
    std::function<CellExpectation(std::size_t, const FreshDraw&)> expected;
    std::function<std::string(std::size_t)> name;
    std::vector<std::size_t> always;                 // checked every time (corners of the interior, say)
};

// Makes `work` redraw `input` (n values; draw.lo and draw.step give their range) before every sample and
// check `count` cells of `output` after every timed launch of the student's.
template <typename In, typename Out>
void use_fresh_field(TimedWork& work, In* input, std::size_t n, FreshDraw draw, const Out* output, int count,
                     FieldOracle oracle) {
    auto current = std::make_shared<FreshDraw>(draw);
    work.renew = [current, input, n](std::uint64_t seed) {
        current->seed = seed;
        fill_fresh(input, n, *current);
    };
    auto shared_oracle = std::make_shared<FieldOracle>(std::move(oracle));
    work.check = [current, shared_oracle, output, count] {
        const FieldOracle& o = *shared_oracle;
        const std::vector<std::size_t> cells = pick_cells(o.cells, count, fresh_hash(current->seed, 7), o.checked, o.always);
        return spot_check_device(output, cells, [&](std::size_t cell) { return o.expected(cell, *current); }, o.name);
    };
}

}  // namespace gpulab
