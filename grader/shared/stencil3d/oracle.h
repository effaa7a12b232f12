// The double-precision oracle of the three 3D stencil labs, and the inputs it is run on. It uses the
// grader's own weights, never the student's.
#pragma once

#include "grid3.h"
#include "stencil3d_api.h"

#include "gpulab/random.h"

#include <vector>

namespace stencil3d_grading::oracle {

// One sweep of the stencil, in double, from an input of any precision: the interior gets the stencil,
// the boundary keeps the input's values (the labs' kernels never write it).
template <typename T>
std::vector<double> sweep(const std::vector<T>& in, const Grid3& g, const Coeffs<double>& c);

// The value of the stencil at one interior cell, and the sum of its terms' magnitudes (the scale a
// rounding error is measured against: a cell whose terms cancel may still carry their rounding).
template <typename T>
double at(const std::vector<T>& in, const Grid3& g, const Coeffs<double>& c, int x, int y, int z, double* scale = nullptr);

// `steps` heat sweeps (c0 = 1 - 6r, c1..c6 = r), boundary fixed.
std::vector<double> heat_steps(std::vector<double> f, const Grid3& g, double r, int steps);

template <typename T>
Coeffs<T> heat_coefficients(double r) {
    return {T(1 - 6 * r), T(r), T(r), T(r), T(r), T(r), T(r)};
}

template <typename T>
Coeffs<T> narrow(const Coeffs<double>& c) {
    return {T(c.c0), T(c.c1), T(c.c2), T(c.c3), T(c.c4), T(c.c5), T(c.c6)};
}

// Seven weights in [-1, 1], no two within 0.05 of each other or of each other's negative, none
// smaller than 0.05 in magnitude: a neighbour read from the wrong place, or a weight on the wrong
// neighbour, changes the result everywhere.
Coeffs<double> distinct_coefficients(gpulab::Rng& rng);

// Values in [0.5, 2], nonzero everywhere, boundary included (a halo cell read as 0 must show).
template <typename T>
std::vector<T> random_field(gpulab::Rng& rng, const Grid3& g);

// The number of whole steps of the largest stable dt (r <= 1/6) that reach tmax.
int steps_to(double k, double h, double tmax);

// A discrete sine mode with zero boundary: sin(pi mx x/(nx-1)) sin(pi my y/(ny-1)) sin(pi mz z/(nz-1)).
// FTCS multiplies it by exactly heat_grading::ftcs_factor (grader/shared/heat) each step.
std::vector<double> sine_mode(const Grid3& g, int mx, int my, int mz, double amplitude);

template <typename T>
std::vector<T> to(const std::vector<double>& f) {
    return std::vector<T>(f.begin(), f.end());
}
template <typename T>
std::vector<double> widen(const std::vector<T>& f) {
    return std::vector<double>(f.begin(), f.end());
}

}  // namespace stencil3d_grading::oracle
