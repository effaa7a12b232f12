// CPU execution mode: device buffers are host memory, so filling and gathering are plain loops.
#include "gpulab/fresh_inputs.h"

namespace gpulab {
namespace {

template <typename T>
std::vector<double> gather_on_host(const T* d, const std::vector<std::size_t>& cells) {
    std::vector<double> values;
    values.reserve(cells.size());
    for (std::size_t cell : cells) values.push_back(double(d[cell]));
    return values;
}

}  // namespace

void fill_fresh(float* d, std::size_t n, const FreshDraw& draw) {
    for (std::size_t i = 0; i < n; ++i) d[i] = float(draw.at(i));
}
void fill_fresh(double* d, std::size_t n, const FreshDraw& draw) {
    for (std::size_t i = 0; i < n; ++i) d[i] = draw.at(i);
}
void fill_fresh(std::uint8_t* d, std::size_t n, const FreshDraw& draw) {
    for (std::size_t i = 0; i < n; ++i) d[i] = draw.byte_at(i);
}

std::vector<double> gather_cells(const float* d, const std::vector<std::size_t>& cells) { return gather_on_host(d, cells); }
std::vector<double> gather_cells(const double* d, const std::vector<std::size_t>& cells) { return gather_on_host(d, cells); }
std::vector<double> gather_cells(const std::uint8_t* d, const std::vector<std::size_t>& cells) { return gather_on_host(d, cells); }

}  // namespace gpulab
