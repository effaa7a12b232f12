// Compares a kernel's output with the oracle's and explains what went wrong.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace gpulab {

// |actual - expected| <= abs + rel * |expected|, per cell.
struct Tolerance {
    double rel = 1e-5;
    double abs = 1e-6;
    double allowed(double expected) const;
};

// The shape of the compared region, for reporting coordinates: cell (x, y, z) sits at linear index
// x + nx * (y + ny * z). `origin` is added to reported coordinates when the region is a window of a
// larger array (the interior of a rod starts at cell 1).
struct Shape {
    std::size_t nx = 1, ny = 1, nz = 1;
    std::size_t origin_x = 0, origin_y = 0, origin_z = 0;
    std::size_t cells() const { return nx * ny * nz; }
    int dims() const { return nz > 1 ? 3 : (ny > 1 ? 2 : 1); }
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
    // A multi-line explanation for a failed test: counts, first mismatches, likely cause.
    std::string explain(const std::string& what) const;
    // One short figure for the grade table, e.g. "max rel err 2.4e-07".
    std::string figure() const;
};

// A cell still holding the grader's poison (all bits set: a NaN) counts as unwritten.
Comparison compare(const std::vector<float>& actual, const std::vector<double>& expected, const Shape& shape,
                   const Tolerance& tolerance);

// The poison alone cannot tell a cell never written from a NaN the kernel computed out of one: x86
// arithmetic keeps a NaN operand's bits, so in CPU execution mode a value computed from a poisoned cell
// is the poison again. A second run of the same launch on an output filled with second_fill() decides:
// a cell was never written only if it holds the poison in `actual` and second_fill() in `second_run`.
// Other poison-looking cells are wrong values ("got nan"), not unwritten ones.
float second_fill();  // a signalling NaN with a payload of its own: arithmetic never produces it
Comparison compare(const std::vector<float>& actual, const std::vector<double>& expected, const Shape& shape,
                   const Tolerance& tolerance, const std::vector<float>& second_run);

// A guess at the cause from where the wrong cells are, or "" when no pattern stands out.
std::string likely_cause(const Comparison& comparison);

// Bitwise equality: "untouched" means the same bits, NaN included.
template <typename T>
bool same_bits(const T& a, const T& b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// How many cells of a and b differ bitwise, and the first of them (-1 when none does).
template <typename T>
long first_difference(const std::vector<T>& a, const std::vector<T>& b, std::size_t* count) {
    long first = -1;
    *count = 0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
        if (!same_bits(a[i], b[i])) {
            if (first < 0) first = long(i);
            ++*count;
        }
    return first;
}

// Relative L2 error ||actual - expected|| / ||expected||, for long runs where per-cell rounding
// drifts; NaN anywhere makes it infinite.
double relative_l2_error(const std::vector<float>& actual, const std::vector<double>& expected);
double relative_l2_error(const std::vector<double>& actual, const std::vector<double>& expected);

}  // namespace gpulab
