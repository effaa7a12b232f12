// Compares a kernel's output with the oracle's and explains what went wrong.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpulab {

// |actual - expected| <= abs + rel * |expected|, per cell.
struct Tolerance {
    double rel = 1e-5;
    double abs = 1e-6;
    double allowed(double expected) const;
};

// The shape of the compared region, for reporting coordinates: channel c of cell (x, y, z) sits at
// linear index c + channels * (x + nx * (y + ny * z)). `origin` is added to reported coordinates
// when the region is a window of a larger array (the interior of a rod starts at cell 1).
struct Shape {
    std::size_t nx = 1, ny = 1, nz = 1;
    std::size_t channels = 1;
    std::size_t origin_x = 0, origin_y = 0, origin_z = 0;
    int rank = 0;  // 1, 2 or 3 to name coordinates that way even for a 1x1 grid; 0: inferred from ny, nz
    std::size_t cells() const { return nx * ny * nz * channels; }
    int dims() const { return rank ? rank : (nz > 1 ? 3 : (ny > 1 ? 2 : 1)); }
    std::string coordinates(std::size_t linear) const;
};

struct Mismatch {
    std::size_t index = 0;
    double actual = 0;
    double expected = 0;
    bool unwritten = false;
};

struct Comparison {
    Shape shape;
    Tolerance tolerance;
    std::size_t wrong = 0;      // cells outside tolerance, unwritten ones included
    std::size_t unwritten = 0;  // cells still holding the poison the grader put there
    double max_abs_error = 0;   // over written cells
    double max_rel_error = 0;
    std::vector<Mismatch> first;  // the first few wrong cells, in index order
    std::vector<std::size_t> wrong_indices;  // all of them (for pattern analysis), capped
    bool ok() const { return wrong == 0; }
    // A multi-line explanation for a failed test: counts, first mismatches, likely cause. A
    // tolerance of rel 0 and abs < 1 on integer data reads as "an exact match is required".
    std::string explain(const std::string& what) const;
    // One short figure for the grade table, e.g. "max rel err 2.4e-07".
    std::string figure() const;
};

// T is float or std::uint8_t (images). A cell still holding the grader's poison (all bits set: NaN,
// or 255 for bytes) counts as unwritten; for bytes, poison the output only where 255 cannot be right,
// or rely on the guard zones instead.
template <typename T>
Comparison compare(const std::vector<T>& actual, const std::vector<double>& expected, const Shape& shape,
                   const Tolerance& tolerance);

// A guess at the cause from where the wrong cells are, or "" when no pattern stands out.
std::string likely_cause(const Comparison& comparison);

// Relative L2 error ||actual - expected|| / ||expected||, for long runs where per-cell rounding
// drifts; NaN anywhere makes it infinite.
double relative_l2_error(const std::vector<float>& actual, const std::vector<double>& expected);

}  // namespace gpulab
