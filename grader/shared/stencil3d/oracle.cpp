#include "oracle.h"

#include "gpulab/parallel_for.h"

#include <cmath>
#include <numbers>

namespace stencil3d_grading {

const char* technique_name(Technique t) {
    static const char* const names[] = {"naive", "tiled", "coarsened", "register-tiled"};
    return names[int(t)];
}

const char* launcher_name(Technique t) {
    static const char* const names[] = {"launch_stencil_naive", "launch_stencil_tiled", "launch_stencil_coarsened",
                                        "launch_stencil_register_tiled"};
    return names[int(t)];
}

const char* lab_of(Technique t) {
    static const char* const labs[] = {"04-stencil3d-tiling", "04-stencil3d-tiling", "05-stencil3d-coarsening",
                                       "06-stencil3d-register-tiling"};
    return labs[int(t)];
}

}  // namespace stencil3d_grading

namespace stencil3d_grading::oracle {

template <typename T>
double at(const std::vector<T>& in, const Grid3& g, const Coeffs<double>& c, int x, int y, int z, double* scale) {
    const std::size_t i = g.at(x, y, z), row = std::size_t(g.nx), plane = row * std::size_t(g.ny);
    const double terms[7] = {c.c0 * double(in[i]),         c.c1 * double(in[i - 1]),   c.c2 * double(in[i + 1]),
                             c.c3 * double(in[i - row]),   c.c4 * double(in[i + row]), c.c5 * double(in[i - plane]),
                             c.c6 * double(in[i + plane])};
    double sum = 0, magnitude = 0;
    for (double t : terms) {
        sum += t;
        magnitude += std::fabs(t);
    }
    if (scale) *scale = magnitude;
    return sum;
}

template <typename T>
std::vector<double> sweep(const std::vector<T>& in, const Grid3& g, const Coeffs<double>& c) {
    std::vector<double> out(in.begin(), in.end());
    for (int z = 1; z <= g.nz - 2; ++z)
        for (int y = 1; y <= g.ny - 2; ++y)
            for (int x = 1; x <= g.nx - 2; ++x) out[g.at(x, y, z)] = at(in, g, c, x, y, z);
    return out;
}

std::vector<double> heat_steps(std::vector<double> f, const Grid3& g, double r, int steps) {
    const Coeffs<double> c = heat_coefficients<double>(r);
    for (int n = 0; n < steps; ++n) f = sweep(f, g, c);
    return f;
}

Coeffs<double> distinct_coefficients(gpulab::Rng& rng) {
    double w[7];
    for (int k = 0; k < 7; ++k) {
        for (;;) {
            const double v = rng.uniform(-1.0, 1.0);
            bool apart = std::fabs(v) >= 0.05;
            for (int j = 0; j < k && apart; ++j) apart = std::fabs(v - w[j]) >= 0.05 && std::fabs(v + w[j]) >= 0.05;
            if (apart) {
                w[k] = v;
                break;
            }
        }
    }
    return {w[0], w[1], w[2], w[3], w[4], w[5], w[6]};
}

template <typename T>
std::vector<T> random_field(gpulab::Rng& rng, const Grid3& g) {
    std::vector<T> f(g.cells());
    const std::uint64_t seed = rng.draw_seed();
    gpulab::parallel_for(f.size(), [&](std::size_t, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) f[i] = T(0.5 + 1.5 * gpulab::counter_uniform(seed, i));
    });
    return f;
}

int steps_to(double k, double h, double tmax) { return int(std::ceil(tmax / (h * h / (6.0 * k)))); }

std::vector<double> sine_mode(const Grid3& g, int mx, int my, int mz, double amplitude) {
    using std::numbers::pi;
    std::vector<double> f(g.cells(), 0.0);
    for (int z = 1; z <= g.nz - 2; ++z)
        for (int y = 1; y <= g.ny - 2; ++y)
            for (int x = 1; x <= g.nx - 2; ++x)
                f[g.at(x, y, z)] = amplitude * std::sin(pi * mx * x / (g.nx - 1)) * std::sin(pi * my * y / (g.ny - 1)) *
                                   std::sin(pi * mz * z / (g.nz - 1));
    return f;
}

template double at(const std::vector<float>&, const Grid3&, const Coeffs<double>&, int, int, int, double*);
template double at(const std::vector<double>&, const Grid3&, const Coeffs<double>&, int, int, int, double*);
template std::vector<double> sweep(const std::vector<float>&, const Grid3&, const Coeffs<double>&);
template std::vector<double> sweep(const std::vector<double>&, const Grid3&, const Coeffs<double>&);
template std::vector<float> random_field(gpulab::Rng&, const Grid3&);
template std::vector<double> random_field(gpulab::Rng&, const Grid3&);

}  // namespace stencil3d_grading::oracle
