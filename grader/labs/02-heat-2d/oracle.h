// The CPU oracle for lab 02, in double precision, with the grader's own constants.
//
// A grid is nx x ny interior cells plus the ghost ring, stored row by row with pitch nx + 2: cell
// (i, j) at j * (nx + 2) + i, 0 <= i <= nx + 1, 0 <= j <= ny + 1 (the layout of heat_2d.h).
#pragma once

#include <cstddef>
#include <vector>

namespace heat_2d_oracle {

struct Grid {
    int nx = 1, ny = 1;
    int pitch() const { return nx + 2; }
    std::size_t cells() const { return std::size_t(nx + 2) * std::size_t(ny + 2); }
    std::size_t at(int i, int j) const { return std::size_t(j) * std::size_t(nx + 2) + std::size_t(i); }
    bool interior(int i, int j) const { return i >= 1 && i <= nx && j >= 1 && j <= ny; }
    bool corner(int i, int j) const { return (i == 0 || i == nx + 1) && (j == 0 || j == ny + 1); }
};

// One FTCS step on the interior; the ghost ring of the result is copied from the input.
std::vector<double> step(const std::vector<double>& in, const Grid& g, double r);
// Insulated walls: each edge ghost copies its interior neighbour; corners are left alone.
template <typename T>
void apply_walls(std::vector<T>& f, const Grid& g) {
    for (int i = 1; i <= g.nx; ++i) {
        f[g.at(i, 0)] = f[g.at(i, 1)];
        f[g.at(i, g.ny + 1)] = f[g.at(i, g.ny)];
    }
    for (int j = 1; j <= g.ny; ++j) {
        f[g.at(0, j)] = f[g.at(1, j)];
        f[g.at(g.nx + 1, j)] = f[g.at(g.nx, j)];
    }
}
// `steps` times: step, then the walls.
std::vector<double> integrate(std::vector<double> f, const Grid& g, double r, int steps);

// The handout's rule: n = ceil(tmax / (h^2 / 4k)) steps of dt = tmax / n.
int steps_to(double k, double h, double tmax);

// The handout's start on a square of side nx*h centred at the origin: exp(-(x^2 + y^2) / 2) at every
// cell centre, ghost ring and corners included (x_i = -nx h/2 + (i - 1/2) h, likewise y_j).
std::vector<double> gaussian_start(const Grid& g, double h);

// The Neumann eigenmode cos(pi m (i - 1/2) / nx) * cos(pi n (j - 1/2) / ny) on every cell.
std::vector<double> cosine_mode(const Grid& g, int m, int n);
// Its amplitude in f: the projection of f's interior onto the mode.
double mode_amplitude(const std::vector<double>& f, const Grid& g, int m, int n);

// Sum over the interior cells.
double interior_sum(const std::vector<double>& f, const Grid& g);

std::vector<double> widen(const std::vector<float>& f);
std::vector<float> narrow(const std::vector<double>& f);

}  // namespace heat_2d_oracle
