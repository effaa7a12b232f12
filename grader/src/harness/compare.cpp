#include "gpulab/compare.h"

#include "gpulab/guarded_array.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>

namespace gpulab {
namespace {

constexpr std::size_t kShown = 8;

Comparison compare_cells(const std::vector<float>& actual, const std::vector<double>& expected, const Shape& shape,
                         const Tolerance& tolerance, const std::vector<float>* second_run);
constexpr std::size_t kKeptIndices = 1u << 20;

std::string number(double value) {
    if (std::isnan(value)) return "nan";  // whatever its sign bit: "-nan" reads like a different thing
    std::ostringstream out;
    out.precision(9);
    out << value;
    return out.str();
}

std::string short_number(double value) {
    std::ostringstream out;
    out.precision(2);
    out << std::scientific << value;
    return out.str();
}

// The coordinate along x of a linear index.
std::size_t x_of(const Shape& shape, std::size_t index) { return index % shape.nx; }

// Wrong cells that all sit at the edges of power-of-two-sized chunks along x are the signature of
// thread-block edges: a missing halo, a missing barrier, or a race with a neighbouring block.
std::size_t block_edge_period(const Comparison& c) {
    if (c.wrong_indices.size() < 2) return 0;
    for (std::size_t period = 1024; period >= 8; period /= 2) {
        if (c.shape.nx <= period) continue;
        for (std::size_t phase : {std::size_t(0), std::size_t(1)}) {
            bool all_on_edges = true;
            for (std::size_t index : c.wrong_indices) {
                const std::size_t x = (x_of(c.shape, index) + c.shape.origin_x + period - phase) % period;
                if (x != 0 && x != period - 1) {
                    all_on_edges = false;
                    break;
                }
            }
            if (all_on_edges) return period;
        }
    }
    return 0;
}

bool on_outer_ring(const Shape& shape, std::size_t index) {
    const std::size_t x = index % shape.nx, y = (index / shape.nx) % shape.ny, z = index / (shape.nx * shape.ny);
    const bool x_edge = x == 0 || x + 1 == shape.nx;
    const bool y_edge = shape.ny > 1 && (y == 0 || y + 1 == shape.ny);
    const bool z_edge = shape.nz > 1 && (z == 0 || z + 1 == shape.nz);
    return x_edge || y_edge || z_edge;
}

}  // namespace

double Tolerance::allowed(double expected) const { return abs + rel * std::fabs(expected); }

std::string Shape::coordinates(std::size_t linear) const {
    const std::size_t x = linear % nx + origin_x;
    const std::size_t y = (linear / nx) % ny + origin_y;
    const std::size_t z = linear / (nx * ny) + origin_z;
    std::ostringstream out;
    switch (dims()) {
        case 1: out << "cell " << x; break;
        case 2: out << "cell (x=" << x << ", y=" << y << ")"; break;
        default: out << "cell (x=" << x << ", y=" << y << ", z=" << z << ")"; break;
    }
    return out.str();
}

float second_fill() {
    const std::uint32_t bits = 0x7FBADBADu;
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

Comparison compare(const std::vector<float>& actual, const std::vector<double>& expected, const Shape& shape,
                   const Tolerance& tolerance) {
    return compare_cells(actual, expected, shape, tolerance, nullptr);
}

Comparison compare(const std::vector<float>& actual, const std::vector<double>& expected, const Shape& shape,
                   const Tolerance& tolerance, const std::vector<float>& second_run) {
    if (second_run.size() != actual.size())
        throw std::logic_error("compare: the second run has a different number of cells");
    return compare_cells(actual, expected, shape, tolerance, &second_run);
}

namespace {

Comparison compare_cells(const std::vector<float>& actual, const std::vector<double>& expected, const Shape& shape,
                         const Tolerance& tolerance, const std::vector<float>* second_run) {
    if (actual.size() != shape.cells() || expected.size() != shape.cells())
        throw std::logic_error("compare: actual, expected and shape disagree on the number of cells");
    Comparison c;
    c.shape = shape;
    c.tolerance = tolerance;
    const float fill = second_fill();
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const bool unwritten = is_poison(actual[i]) && (!second_run || same_bits((*second_run)[i], fill));
        const double error = std::fabs(double(actual[i]) - expected[i]);
        const bool good = !unwritten && error <= tolerance.allowed(expected[i]);  // false for NaN
        if (!unwritten && std::isfinite(error)) {
            c.max_abs_error = std::max(c.max_abs_error, error);
            if (expected[i] != 0) c.max_rel_error = std::max(c.max_rel_error, error / std::fabs(expected[i]));
        } else if (!unwritten) {
            c.max_abs_error = c.max_rel_error = std::numeric_limits<double>::infinity();
        }
        if (good) continue;
        ++c.wrong;
        if (unwritten) ++c.unwritten;
        if (c.first.size() < kShown) c.first.push_back({i, actual[i], expected[i], unwritten});
        if (c.wrong_indices.size() < kKeptIndices) c.wrong_indices.push_back(i);
    }
    return c;
}

}  // namespace

std::string likely_cause(const Comparison& c) {
    const std::size_t cells = c.shape.cells();
    if (c.wrong == 0) return "";
    if (c.unwritten == cells)
        return "No cell was written. Is the kernel launched (with at least one block), and does every "
               "thread store its result?";
    if (c.unwritten == c.wrong) {
        const std::size_t first = c.wrong_indices.front(), last = c.wrong_indices.back();
        if (c.shape.dims() == 1 && last == cells - 1 && last - first + 1 == c.wrong)
            return "The last " + std::to_string(c.wrong) +
                   " cells were never written: the grid is too small to cover the array. Round the "
                   "number of blocks up: (n + block - 1) / block.";
        if (c.shape.dims() == 1 && first == 0 && last - first + 1 == c.wrong)
            return "The first " + std::to_string(c.wrong) +
                   " cells were never written: check the index each thread computes (is it shifted?).";
        return "Some cells were never written (they still hold the NaN the grader filled the output "
               "with): some threads return before storing, or the grid does not cover every cell.";
    }
    if (const std::size_t period = block_edge_period(c))
        return "Wrong cells repeat every " + std::to_string(period) +
               " cells, at the edges of thread blocks: a halo cell not loaded, a missing "
               "__syncthreads(), or a read of a cell another block has already overwritten "
               "(an in-place update races across blocks).";
    if (std::all_of(c.wrong_indices.begin(), c.wrong_indices.end(),
                    [&](std::size_t i) { return on_outer_ring(c.shape, i); }))
        return "Only cells on the edge of the region are wrong: check how the stencil treats the cells "
               "next to the boundary (which neighbours they read, and the index bounds).";
    if (c.wrong == cells)
        return "Every cell is wrong: check the formula and its coefficients, and that the kernel reads "
               "the input array (not the output).";
    return "";
}

std::string Comparison::explain(const std::string& what) const {
    std::ostringstream out;
    out << what << ": " << wrong << " of " << shape.cells() << " values are wrong";
    if (unwritten)
        out << " (" << unwritten << " still hold the grader's fill value: never written, or computed from "
            << "memory nothing wrote)";
    out << ". Allowed error per value: " << short_number(tolerance.abs) << " + " << short_number(tolerance.rel)
        << " * |expected|.\n";
    for (const Mismatch& m : first) {
        out << "    " << shape.coordinates(m.index) << ": ";
        if (m.unwritten)
            out << "never written";
        else
            out << "got " << number(m.actual);
        out << ", expected " << number(m.expected) << "\n";
    }
    if (wrong > first.size()) out << "    ... and " << (wrong - first.size()) << " more\n";
    const std::string cause = likely_cause(*this);
    if (!cause.empty()) out << "  Likely cause: " << cause << "\n";
    return out.str();
}

std::string Comparison::figure() const {
    if (unwritten) return std::to_string(unwritten) + (unwritten == 1 ? " cell unwritten" : " cells unwritten");
    if (wrong) return std::to_string(wrong) + " wrong, max err " + short_number(max_abs_error);
    return "max rel err " + short_number(max_rel_error);
}

namespace {

template <typename T>
double relative_l2(const std::vector<T>& actual, const std::vector<double>& expected) {
    if (actual.size() != expected.size()) throw std::logic_error("relative_l2_error: sizes differ");
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double d = double(actual[i]) - expected[i];
        diff += d * d;
        norm += expected[i] * expected[i];
    }
    if (!std::isfinite(diff)) return std::numeric_limits<double>::infinity();
    return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

}  // namespace

double relative_l2_error(const std::vector<float>& actual, const std::vector<double>& expected) {
    return relative_l2(actual, expected);
}

double relative_l2_error(const std::vector<double>& actual, const std::vector<double>& expected) {
    return relative_l2(actual, expected);
}

}  // namespace gpulab
