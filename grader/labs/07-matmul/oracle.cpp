#include "oracle.h"

#include <cmath>

namespace matmul_oracle {

Product multiply(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k, bool b_transposed) {
    Product p{std::vector<double>(std::size_t(m) * n, 0.0), std::vector<double>(std::size_t(m) * n, 0.0)};
    const std::vector<float> b_rows = b_transposed ? transpose(b, n, k) : b;
    // i-k-j order: the inner loop runs along rows of B and C, which the compiler vectorises.
#pragma omp parallel for schedule(static)
    for (int i = 0; i < m; ++i) {
        double* c_row = &p.c[std::size_t(i) * n];
        double* mag_row = &p.magnitude[std::size_t(i) * n];
        for (int e = 0; e < k; ++e) {
            const double a_ie = a[std::size_t(i) * k + e];
            const float* b_row = &b_rows[std::size_t(e) * n];
            for (int j = 0; j < n; ++j) {
                const double term = a_ie * double(b_row[j]);
                c_row[j] += term;
                mag_row[j] += std::fabs(term);
            }
        }
    }
    return p;
}

double element(const float* a, const float* b, int n, int k, int i, int j, double* magnitude) {
    double sum = 0, mag = 0;
    for (int e = 0; e < k; ++e) {
        const double term = double(a[std::size_t(i) * k + e]) * double(b[std::size_t(e) * n + j]);
        sum += term;
        mag += std::fabs(term);
    }
    *magnitude = mag;
    return sum;
}

double allowed_error(double magnitude, int k, double factor) {
    const double unit_roundoff = std::ldexp(1.0, -24);
    return factor * unit_roundoff * std::sqrt(double(k)) * magnitude;
}

std::vector<float> transpose(const std::vector<float>& in, int rows, int cols) {
    std::vector<float> out(in.size());
    // Each thread writes whole rows of the output: the transpose test goes up to 4096 x 4096.
#pragma omp parallel for schedule(static)
    for (int c = 0; c < cols; ++c)
        for (int r = 0; r < rows; ++r) out[std::size_t(c) * rows + r] = in[std::size_t(r) * cols + c];
    return out;
}

}  // namespace matmul_oracle
