#include "oracle.h"

#include <cmath>

namespace heat_2d_oracle {

std::vector<double> step(const std::vector<double>& in, const Grid& g, double r) {
    std::vector<double> out = in;
    const std::size_t p = std::size_t(g.pitch());
    for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) {
            const std::size_t c = g.at(i, j);
            out[c] = in[c] + r * (in[c - 1] + in[c + 1] + in[c - p] + in[c + p] - 4.0 * in[c]);
        }
    return out;
}

std::vector<double> integrate(std::vector<double> f, const Grid& g, double r, int steps) {
    for (int n = 0; n < steps; ++n) {
        f = step(f, g, r);
        apply_walls(f, g);
    }
    return f;
}

int steps_to(double k, double h, double tmax) { return int(std::ceil(tmax / (0.25 * h * h / k))); }

std::vector<double> gaussian_start(const Grid& g, double h) {
    std::vector<double> f(g.cells());
    for (int j = 0; j <= g.ny + 1; ++j)
        for (int i = 0; i <= g.nx + 1; ++i) {
            const double x = -0.5 * g.nx * h + (i - 0.5) * h;
            const double y = -0.5 * g.ny * h + (j - 0.5) * h;
            f[g.at(i, j)] = std::exp(-0.5 * (x * x + y * y));
        }
    return f;
}

std::vector<double> cosine_mode(const Grid& g, int m, int n) {
    std::vector<double> f(g.cells());
    for (int j = 0; j <= g.ny + 1; ++j)
        for (int i = 0; i <= g.nx + 1; ++i)
            f[g.at(i, j)] = std::cos(M_PI * m * (i - 0.5) / g.nx) * std::cos(M_PI * n * (j - 0.5) / g.ny);
    return f;
}

double mode_amplitude(const std::vector<double>& f, const Grid& g, int m, int n) {
    const std::vector<double> mode = cosine_mode(g, m, n);
    double dot = 0, norm = 0;
    for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) {
            dot += f[g.at(i, j)] * mode[g.at(i, j)];
            norm += mode[g.at(i, j)] * mode[g.at(i, j)];
        }
    return dot / norm;
}

double interior_sum(const std::vector<double>& f, const Grid& g) {
    double sum = 0;
    for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) sum += f[g.at(i, j)];
    return sum;
}

std::vector<double> widen(const std::vector<float>& f) { return std::vector<double>(f.begin(), f.end()); }
std::vector<float> narrow(const std::vector<double>& f) { return std::vector<float>(f.begin(), f.end()); }

}  // namespace heat_2d_oracle
