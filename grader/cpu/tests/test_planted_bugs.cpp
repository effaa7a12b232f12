// Planted bugs and the verdict CPU mode must give each (the grader relies on these).
#include <string>
#include "test_util.h"

namespace {
using ::testing::HasSubstr;

std::string detail() { return gpulab::cpu::last_error_detail(); }

// Deleting the barrier from the tiled stencil must give wrong results for every seed, and the same wrong
// results for the same seed.
TEST_F(CpuMode, MissingBarrierIsWrongForEverySeed) {
  const unsigned n = 37;
  auto h = random_floats(size_t(n) * n * n, 11);
  auto want = stencil3d_oracle(h, n);
  DeviceBuffer<float> in(h.size()), out(h.size());
  CUDA_OK(in.upload(h));
  for (unsigned long long seed : {1ull, 2ull, 3ull, 4ull, 5ull}) {
    gpulab::cpu::set_scheduling_seed(seed);
    out.poison();
    CUDA_OK(stencil3d_tiled(in.get(), out.get(), n, kCoef7));  // control: the correct kernel passes
    EXPECT_EQ(count_mismatches(out.download(), want), 0u) << "seed " << seed;
    out.poison();
    CUDA_OK(stencil3d_tiled_nosync(in.get(), out.get(), n, kCoef7));
    auto first = out.download();
    size_t bad = count_mismatches(first, want);
    EXPECT_GT(bad, want.size() / 10) << "seed " << seed << ": only " << bad << " wrong cells";
    out.poison();
    CUDA_OK(stencil3d_tiled_nosync(in.get(), out.get(), n, kCoef7));
    auto second = out.download();
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)), 0) << "not deterministic";
  }
}

TEST_F(CpuMode, MissingBarrierIsWrongAtTinySize) {
  const unsigned n = 5;  // one block
  auto h = random_floats(size_t(n) * n * n, 12);
  DeviceBuffer<float> in(h.size()), out(h.size());
  CUDA_OK(in.upload(h));
  for (unsigned long long seed = 1; seed <= 5; ++seed) {
    gpulab::cpu::set_scheduling_seed(seed);
    out.poison();
    CUDA_OK(stencil3d_tiled_nosync(in.get(), out.get(), n, kCoef7));
    EXPECT_GT(count_mismatches(out.download(), stencil3d_oracle(h, n)), 0u) << "seed " << seed;
  }
}

TEST_F(CpuMode, RacyInPlaceUpdateIsWrong) {
  const int n = 5000;
  auto h = random_floats(n, 13);
  std::vector<double> want(n);
  want[0] = h[0];
  want[n - 1] = h[n - 1];
  for (int i = 1; i + 1 < n; ++i) want[i] = 0.25 * h[i - 1] + 0.5 * h[i] + 0.25 * h[i + 1];
  DeviceBuffer<float> x(n);
  for (unsigned long long seed = 1; seed <= 5; ++seed) {
    gpulab::cpu::set_scheduling_seed(seed);
    CUDA_OK(x.upload(h));
    CUDA_OK(smooth_inplace(x.get(), n));
    EXPECT_GT(count_mismatches(x.download(), want), size_t(n) / 10) << "seed " << seed;
  }
}

TEST_F(CpuMode, OutOfBoundsWriteIsIllegalAddressAndSticky) {
  const int n = 1000;
  DeviceBuffer<float> out(n);
  EXPECT_EQ(fill_off_by_one(out.get(), n), cudaErrorIllegalAddress);
  // Thread 1000 = block 3, thread 232 writes out[1000].
  EXPECT_THAT(detail(), HasSubstr("wrote past the end of a device buffer"));
  EXPECT_THAT(detail(), HasSubstr("kernel fill_kernel"));
  EXPECT_THAT(detail(), HasSubstr("block (3,0,0) thread (232,0,0)"));
  // Sticky, like a corrupted CUDA context: every later call fails with the same error.
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 16), cudaErrorIllegalAddress);
  // The process survives and a reset brings the "device" back.
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  DeviceBuffer<float> fresh(n + 1);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fill_off_by_one(fresh.get(), n), cudaSuccess);
  auto h = fresh.download();
  EXPECT_EQ(h[n], 1.0f);
}

TEST_F(CpuMode, DivergentBarrierIsReported) {
  DeviceBuffer<float> out(128);
  EXPECT_EQ(divergent_barrier(out.get()), cudaErrorLaunchFailure);
  EXPECT_THAT(detail(), HasSubstr("wait at different __syncthreads() calls"));
  EXPECT_THAT(detail(), HasSubstr("divergent_kernel"));
  EXPECT_THAT(detail(), HasSubstr("divergent_barrier.cu:9"));
  EXPECT_THAT(detail(), HasSubstr("divergent_barrier.cu:11"));
}

// Threads that skip the only barrier and exit: a GPU releases the barrier without them (cc >= 7.0), so the
// launch succeeds; their reads of what the others wrote before the barrier race, and CPU mode's thread
// order makes the race show as wrong values on every seed.
TEST_F(CpuMode, SkippedBarrierIsARaceNotAFailure) {
  DeviceBuffer<float> out(128);
  for (unsigned long long seed = 1; seed <= 5; ++seed) {
    gpulab::cpu::set_scheduling_seed(seed);
    out.poison();
    CUDA_OK(skipped_barrier(out.get()));
    auto h = out.download();
    size_t wrong = 0;
    for (int b = 0; b < 2; ++b)
      for (int t = 0; t < 64; ++t) wrong += h[b * 64 + t] != float(63 - t);
    EXPECT_GT(wrong, 0u) << "seed " << seed;
  }
}

// The first warp waits at the barrier: its reads are of values written before it, always right.
TEST_F(CpuMode, SkippedBarrierWaitersReadRightValues) {
  DeviceBuffer<float> out(128);
  out.poison();
  CUDA_OK(skipped_barrier(out.get()));
  auto h = out.download();
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 32; ++t) EXPECT_EQ(h[b * 64 + t], float(63 - t)) << "block " << b << " thread " << t;
}

TEST_F(CpuMode, DeviceAssertFailsTheLaunchNotTheProcess) {
  auto h = random_floats(100, 3);
  h[77] = -1.0f;
  DeviceBuffer<float> in(100);
  CUDA_OK(in.upload(h));
  EXPECT_EQ(device_assert_negative(in.get(), 100), cudaErrorAssert);
  EXPECT_THAT(detail(), HasSubstr("block (1,0,0) thread (13,0,0)"));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorAssert);
}
}  // namespace
