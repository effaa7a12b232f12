#include "gpulab/spot_check.h"

#include "gpulab/format.h"
#include "gpulab/guarded_array.h"

#include <cmath>

namespace gpulab {

std::vector<std::size_t> pick_cells(std::size_t total, int count, std::uint64_t seed,
                                    const std::function<bool(std::size_t)>& eligible, std::vector<std::size_t> always) {
    std::vector<std::size_t> cells = std::move(always);
    if (total == 0) return cells;
    // A bounded number of tries: an eligible set that is nearly empty must not loop forever.
    for (std::uint64_t draw = 0, picked = 0; picked < std::uint64_t(count) && draw < 64ull * std::uint64_t(count) + 64; ++draw) {
        const std::size_t cell = std::size_t(fresh_hash(seed, draw) % total);
        if (eligible && !eligible(cell)) continue;
        cells.push_back(cell);
        ++picked;
    }
    return cells;
}

std::string judge_cells(const std::vector<std::size_t>& cells, const std::vector<double>& values,
                        const std::function<CellExpectation(std::size_t)>& expected,
                        const std::function<std::string(std::size_t)>& name) {
    std::size_t wrong = 0;
    std::string examples;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const CellExpectation e = expected(cells[i]);
        const double v = values[i];
        if (std::isfinite(v) && std::fabs(v - e.value) <= e.allowed) continue;
        if (++wrong <= 2)
            examples += std::string(wrong == 1 ? "" : "; ") + name(cells[i]) + " = " +
                        (std::isnan(v) ? std::string("never written (NaN)") : num(v)) + " where " + num(e.value) +
                        " was expected";
    }
    if (wrong == 0) return "";
    return std::to_string(wrong) + " of " + std::to_string(cells.size()) + " cells checked are wrong, e.g. " + examples;
}

}  // namespace gpulab
