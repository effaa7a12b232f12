#include "oracle.h"

#include <cmath>

namespace heat_rod_oracle {

std::vector<double> step(const std::vector<double>& in, double r) {
    std::vector<double> out = in;
    for (std::size_t i = 1; i + 1 < in.size(); ++i) out[i] = in[i] + r * (in[i + 1] - 2.0 * in[i] + in[i - 1]);
    return out;
}

void apply_insulated_ends(std::vector<double>& f) {
    f.front() = f[1];
    f.back() = f[f.size() - 2];
}

std::vector<double> integrate(std::vector<double> f, double r, int steps) {
    for (int n = 0; n < steps; ++n) {
        f = step(f, r);
        apply_insulated_ends(f);
    }
    return f;
}

int steps_to(double k, double dx, double tmax) { return int(std::ceil(tmax / (0.5 * dx * dx / k))); }

double cell_centre(int i, int M, double length) {
    const double dx = length / (M - 2);
    return -0.5 * length + (i - 0.5) * dx;
}

std::vector<double> gaussian_start(int M, double length) {
    std::vector<double> f(M);
    for (int i = 0; i < M; ++i) {
        const double x = cell_centre(i, M, length);
        f[i] = std::exp(-0.5 * x * x);
    }
    return f;
}

std::vector<double> cosine_mode(int M, int m) {
    const int N = M - 2;
    std::vector<double> f(M);
    for (int i = 0; i < M; ++i) f[i] = std::cos(M_PI * m * (i - 0.5) / N);
    return f;
}

double mode_amplitude(const std::vector<double>& f, int m) {
    const std::vector<double> mode = cosine_mode(int(f.size()), m);
    double dot = 0, norm = 0;
    for (std::size_t i = 1; i + 1 < f.size(); ++i) {
        dot += f[i] * mode[i];
        norm += mode[i] * mode[i];
    }
    return dot / norm;
}

std::vector<double> widen(const std::vector<float>& f) { return std::vector<double>(f.begin(), f.end()); }

}  // namespace heat_rod_oracle
