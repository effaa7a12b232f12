// Lab 07's oracle: C = A * B in double precision, and how far a float computation of each element may
// honestly be from it.
#pragma once

#include <cstddef>
#include <vector>

namespace matmul_oracle {

// The exact product (to double's precision) and, per element, sum over k of |A(i, k) * B(k, j)|: the
// scale its float rounding errors grow with.
struct Product {
    std::vector<double> c;
    std::vector<double> magnitude;
};

// A (m x k) and B (k x n), row-major; `b_transposed` says B is given as Bt (n x k).
Product multiply(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k, bool b_transposed = false);

// One element of the product, for spot checks of large products: C(i, j) and its magnitude.
double element(const float* a, const float* b, int n, int k, int i, int j, double* magnitude);

// How far a float sum of k products may be from the exact value: factor * u * sqrt(k) * magnitude,
// u = 2^-24 float's unit roundoff. Rounding errors of a k-term sum behave like a random walk: they
// grow with sqrt(k) times the terms' size (k times, in the never-reached worst case), whatever order
// the kernel sums in. factor 3 covers every correct order with a wide margin; a TF32 or half-precision
// product, a missing term or a term counted twice is far outside it.
double allowed_error(double magnitude, int k, double factor);

// Bt = B^T: `in` is rows x cols, the result cols x rows.
std::vector<float> transpose(const std::vector<float>& in, int rows, int cols);

}  // namespace matmul_oracle
