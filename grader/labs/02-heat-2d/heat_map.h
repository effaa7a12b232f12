// Pictures for lab 02: temperature fields as heat maps and the scaling study as a log-log plot.
// Both go through gpulab::save_png; nothing here touches the GPU.
#pragma once

#include "gpulab/image.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace heat_2d_pictures {

// A perceptual colour map close to matplotlib's "viridis" (dark purple, blue, green, yellow):
// t in [0, 1] (clamped) to RGB. Equal steps in t look like equal steps in brightness, and it reads
// correctly for most colour-blind viewers and in grey print, unlike a rainbow.
std::array<std::uint8_t, 3> viridis(double t);

// The interior nx x ny cells of a field laid out as heat_2d.h says (pitch nx + 2), drawn with y up
// (row ny at the top), each cell a square of pixels so the picture is about `pixels` wide, values
// mapped linearly from [lo, hi] onto the colour map, and a colour bar (lo at the bottom, hi at the
// top) on the right. Cells that are NaN or infinite are drawn magenta.
gpulab::Image heat_map(const std::vector<float>& field, int nx, int ny, double lo, double hi, int pixels);

// A log-log plot: x from the first to the last entry of `x` (powers of two), y over decades;
// one coloured line with dots per series, and a legend. Ticks and titles are drawn in a tiny pixel font.
struct Series {
    std::vector<double> y;  // one value per x; values <= 0 or non-finite are skipped
    std::array<std::uint8_t, 3> colour;
    std::string label;  // lower-case letters from "adilmnoprstv", digits, space
};
gpulab::Image log_log_plot(const std::vector<double>& x, const std::vector<Series>& series);

}  // namespace heat_2d_pictures
