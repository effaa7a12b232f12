// Small helpers shared by the CPU-mode self-tests: RAII device buffers, seeded inputs, oracles.
#pragma once
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>
#include <gpulab_cpu/read_count.h>
#include "kernels.h"

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call << ": " << gpulab::cpu::last_error_detail()

template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) { ok_ = cudaMalloc(&p_, n * sizeof(T)) == cudaSuccess; }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p_; }
  bool ok() const { return ok_; }
  cudaError_t upload(const std::vector<T>& h) { return cudaMemcpy(p_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice); }
  std::vector<T> download() const {
    std::vector<T> h(n_);
    cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
  }
  // NaN-poison before a launch, so unwritten cells are visible.
  void poison() {
    std::vector<T> h(n_);
    std::memset(h.data(), 0xFF, n_ * sizeof(T));
    upload(h);
  }

 private:
  T* p_ = nullptr;
  size_t n_;
  bool ok_ = false;
};

inline std::vector<float> random_floats(size_t n, unsigned seed, float lo = 0.5f, float hi = 1.5f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

inline bool close(double got, double want, double rel = 1e-5, double abs_floor = 1e-5) {
  return std::fabs(got - want) <= std::max(abs_floor, rel * std::fabs(want));
}

// The test's fixture: a fresh "device" per test (clears sticky errors and allocations).
class CpuMode : public ::testing::Test {
 protected:
  void SetUp() override { gpulab::cpu::set_scheduling_seed(1); }
  void TearDown() override { cudaDeviceReset(); }
};

// The fixture of a test that counts device accesses (gpulab_cpu/read_count.h): skipped, saying why, where this
// build or machine cannot count (no Capstone, not x86-64 Linux).
class CountingCpuMode : public CpuMode {
 protected:
  void SetUp() override {
    CpuMode::SetUp();
    std::string why;
    if (!gpulab::cpu::read_counting_supported(&why)) GTEST_SKIP() << why;
  }
};

inline const float kCoef7[7] = {0.5f, 0.11f, 0.13f, 0.07f, 0.17f, 0.03f, 0.19f};

inline std::vector<double> stencil3d_oracle(const std::vector<float>& in, unsigned n) {
  std::vector<double> out(in.size(), std::numeric_limits<double>::quiet_NaN());
  auto at = [&](unsigned i, unsigned j, unsigned k) { return double(in[(size_t(i) * n + j) * n + k]); };
  for (unsigned i = 1; i + 1 < n; ++i)
    for (unsigned j = 1; j + 1 < n; ++j)
      for (unsigned k = 1; k + 1 < n; ++k)
        out[(size_t(i) * n + j) * n + k] = kCoef7[0] * at(i, j, k) + kCoef7[1] * at(i, j, k - 1) +
                                           kCoef7[2] * at(i, j, k + 1) + kCoef7[3] * at(i, j - 1, k) +
                                           kCoef7[4] * at(i, j + 1, k) + kCoef7[5] * at(i - 1, j, k) +
                                           kCoef7[6] * at(i + 1, j, k);
  return out;
}

// Number of interior cells that differ from the oracle (NaN counts as different); boundary cells must
// stay as poisoned (NaN) or they count as wrong too.
inline size_t count_mismatches(const std::vector<float>& got, const std::vector<double>& want) {
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) bad += !std::isnan(got[i]);
    else bad += !(close(got[i], want[i]));
  }
  return bad;
}
