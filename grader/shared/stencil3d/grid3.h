// An nx x ny x nz grid laid out as labs/common/stencil3d.h says: x fastest, then y, then z.
#pragma once

#include <cstddef>
#include <string>

namespace stencil3d_grading {

struct Grid3 {
    int nx = 3, ny = 3, nz = 3;
    std::size_t cells() const { return std::size_t(nx) * std::size_t(ny) * std::size_t(nz); }
    std::size_t interior_cells() const { return std::size_t(nx - 2) * std::size_t(ny - 2) * std::size_t(nz - 2); }
    std::size_t at(int x, int y, int z) const { return (std::size_t(z) * ny + y) * nx + x; }
    bool interior(int x, int y, int z) const {
        return x >= 1 && x <= nx - 2 && y >= 1 && y <= ny - 2 && z >= 1 && z <= nz - 2;
    }
    // "130x33x7"
    std::string name() const { return std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz); }
};

// "(x, y, z)"
inline std::string cell_name(int x, int y, int z) {
    return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
}

}  // namespace stencil3d_grading
