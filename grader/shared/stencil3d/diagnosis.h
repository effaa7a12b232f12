// Likely causes of a wrong 3D stencil output, read off where the bad cells are and what they hold.
// Each returns one or more sentences, or "" when its pattern is not there: a diagnosis that names the
// wrong cause is worse than none, so each looks for one precise pattern.
#pragma once

#include "grid3.h"
#include "stencil3d_api.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stencil3d_grading::diagnosis {

// Per cell of the whole grid: what the check found there.
enum Cell : std::uint8_t { ok = 0, wrong = 1, unwritten = 2 };

// The output matches the stencil with two weights exchanged, or with c1 on all six neighbours.
std::string swapped_weights(const std::vector<double>& out, const std::vector<double>& in, const Grid3& g,
                            const Coeffs<double>& c, double rel_tol);

// Every bad cell lies in a few whole z-planes: which ones, and whether they are the first or the last
// plane of every chunk of P planes (a coarsened kernel that skips one end of its column).
std::string plane_pattern(const std::vector<std::uint8_t>& cells, const Grid3& g);

// Cells never written beyond some x, y or z (a grid that does not cover the interior), or scattered.
std::string coverage_pattern(const std::vector<std::uint8_t>& cells, const Grid3& g);

// Every wrong cell lies on a face of the output tiles of some size: where halos are read.
std::string tile_face_pattern(const std::vector<std::uint8_t>& cells, const Grid3& g);

}  // namespace stencil3d_grading::diagnosis
