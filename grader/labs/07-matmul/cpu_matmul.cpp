#include "cpu_matmul.h"

#include <cstddef>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace matmul_cpu {

namespace {

// One row of C. The k loop is the seed's: a column of B, n floats apart, so every step is a cache miss
// once n is large. (Summing in a float keeps the arithmetic the GPU kernels do.)
inline void row_of(const float* a, const float* b, float* c, int n, int i) {
    for (int j = 0; j < n; ++j) {
        float sum = 0.0f;
        for (int e = 0; e < n; ++e) sum += a[std::size_t(i) * n + e] * b[std::size_t(e) * n + j];
        c[std::size_t(i) * n + j] = sum;
    }
}

}  // namespace

void serial(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c, int n) {
    for (int i = 0; i < n; ++i) row_of(a.data(), b.data(), c.data(), n, i);
}

void serial_bt(const std::vector<float>& a, const std::vector<float>& bt, std::vector<float>& c, int n) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (int e = 0; e < n; ++e) sum += a[std::size_t(i) * n + e] * bt[std::size_t(j) * n + e];
            c[std::size_t(i) * n + j] = sum;
        }
}

void openmp(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c, int n) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) row_of(a.data(), b.data(), c.data(), n, i);
}

int openmp_threads() {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

}  // namespace matmul_cpu
