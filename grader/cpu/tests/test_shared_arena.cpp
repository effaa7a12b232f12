// Static __shared__ arrays live in a guarded per-worker arena (src/shared_arena.cpp): the forms students write
// keep working, and an access just outside an array is reported as such, on every run, without harming CPU
// execution mode itself (issue 35, item 5).
#include <gpulab_cpu/launch_observer.h>
#include <gpulab_cpu/shared_memory.h>
#include <unistd.h>
#include <cmath>
#include <string>
#include "test_util.h"

namespace {
using ::testing::HasSubstr;
using ::testing::Not;

std::string shared_detail() { return gpulab::cpu::last_error_detail(); }

size_t g_static_shared = 0;
void remember_static_shared(const gpulab::cpu::LaunchRecord& r) { g_static_shared = r.static_shared; }

// A correct kernel after a reset: the "device" (and the arena) must still work.
void expect_next_launch_works() {
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  DeviceBuffer<float> out(48);
  ASSERT_EQ(shared_reverse(out.get(), 48), cudaSuccess) << shared_detail();
  auto h = out.download();
  for (int t = 0; t < 48; ++t) ASSERT_EQ(h[t], float(47 - t)) << t;
}

TEST_F(CpuMode, StaticSharedFormsStillWork) {
  const int blocks = 8;
  DeviceBuffer<float> out(blocks * 64);
  DeviceBuffer<uintptr_t> addr(5);
  gpulab::cpu::set_launch_observer(remember_static_shared);
  CUDA_OK(shared_two_arrays(out.get(), addr.get(), blocks));
  gpulab::cpu::set_launch_observer(nullptr);
  auto h = out.download();
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < 64; ++t) ASSERT_EQ(h[b * 64 + t], float(202 - t)) << "block " << b << " thread " << t;
  auto a = addr.download();
  EXPECT_EQ(a[0] % 16, 0u) << "__align__(16) float odd[3]";
  EXPECT_EQ(a[1] % 16, 0u) << "alignas(16) double al[3]";
  EXPECT_EQ(a[2] % 16, 0u) << "alignas(float4) float al4[5]";
  // The kernel's own arrays plus the __device__ function's, each once per block.
  EXPECT_EQ(g_static_shared, size_t(a[4]) + 64 * sizeof(float));

  DeviceBuffer<float> other(32);
  CUDA_OK(shared_other_kernel(other.get()));
  auto o = other.download();
  for (int t = 0; t < 32; ++t) EXPECT_EQ(o[t], float(31 - t) + 100.0f) << "unwritten __shared__ must read as NaN";
  DeviceBuffer<float> lambdas(32);
  CUDA_OK(shared_lambdas(lambdas.get()));
  auto l = lambdas.download();
  for (int t = 0; t < 32; ++t) EXPECT_EQ(l[t], 3.0f * float(31 - t)) << "lambdas in a kernel";
  for (int n : {16, 48}) {
    DeviceBuffer<float> r(n);
    CUDA_OK(shared_reverse(r.get(), n));
    auto v = r.download();
    for (int t = 0; t < n; ++t) EXPECT_EQ(v[t], float(n - 1 - t)) << "reverse_kernel<" << n << ">";
  }
}

// Lab 02's planted bug (grader/labs/02-heat-2d/wrong/tiled-corner-halo-past-tile.json), 20 times: the same
// verdict and message every time, and the next launch works.
TEST_F(CpuMode, WritePastStaticSharedTileIsReportedEveryTime) {
  for (unsigned long long seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    gpulab::cpu::set_scheduling_seed(seed);
    {
      DeviceBuffer<float> in(256), out(256);
      ASSERT_EQ(in.upload(random_floats(256, 5)), cudaSuccess);
      EXPECT_EQ(shared_corner_halo(in.get(), out.get(), 256), cudaErrorIllegalAddress);
    }
    EXPECT_THAT(shared_detail(), HasSubstr("kernel corner_halo_kernel"));
    EXPECT_THAT(shared_detail(), HasSubstr("thread (31,7,0) wrote past the end of __shared__ array `tile`"));
    EXPECT_THAT(shared_detail(), HasSubstr("(float [10][34], 1360 bytes, declared at "));
    EXPECT_THAT(shared_detail(), HasSubstr("shared_overrun.cu:8)"));
    EXPECT_THAT(shared_detail(), HasSubstr("element [10][0] (byte offset 1360), 1 element after its last one"));
    EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);  // sticky, as on a GPU
    expect_next_launch_works();
  }
}

TEST_F(CpuMode, ReadPastStaticSharedArrayIsReported) {
  for (unsigned long long seed = 1; seed <= 20; ++seed) {
    gpulab::cpu::set_scheduling_seed(seed);
    {
      DeviceBuffer<float> out(256);
      EXPECT_EQ(shared_read_past_end(out.get()), cudaErrorIllegalAddress);
    }
    EXPECT_THAT(shared_detail(), HasSubstr("thread (63,0,0) read past the end of __shared__ array `a` (float [64], 256 bytes"));
    EXPECT_THAT(shared_detail(), HasSubstr("element [64] (byte offset 256), 1 element after its last one"));
    EXPECT_THAT(shared_detail(), HasSubstr("kernel read_past_kernel"));
    expect_next_launch_works();
  }
}

// Best effort before the start: a write into the page that holds the array's start is found when the block
// ends (without the thread); reads there are not detected.
TEST_F(CpuMode, WriteBeforeStaticSharedArrayIsReported) {
  {
    DeviceBuffer<float> out(256);
    EXPECT_EQ(shared_write_before_start(out.get()), cudaErrorIllegalAddress);
  }
  EXPECT_THAT(shared_detail(), HasSubstr("wrote before the start of __shared__ array `a` (float [64], 256 bytes"));
  EXPECT_THAT(shared_detail(), HasSubstr("element [-1] (byte offset -4), 1 element before its first one"));
  EXPECT_THAT(shared_detail(), HasSubstr("of kernel write_before_kernel"));
  expect_next_launch_works();
}

TEST_F(CpuMode, OverrunNamesTheArrayItLeft) {
  {
    DeviceBuffer<float> out(64);
    EXPECT_EQ(shared_first_of_two(out.get()), cudaErrorIllegalAddress);
  }
  EXPECT_THAT(shared_detail(), HasSubstr("thread (31,0,0) wrote past the end of __shared__ array `counts` (int [32]"));
  EXPECT_THAT(shared_detail(), Not(HasSubstr("values")));
  expect_next_launch_works();
}

// The query for counters (issue 34's shared-memory counts): page ranges of the static slots and the
// dynamic buffer, which hold the arrays kernels used.
TEST_F(CpuMode, SharedMemoryRegionsCoverTheArrays) {
  DeviceBuffer<float> out(64);
  DeviceBuffer<uintptr_t> addr(5);
  CUDA_OK(shared_two_arrays(out.get(), addr.get(), 1));
  const uintptr_t left = addr.download()[3];
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  bool found = false, dynamic = false;
  for (const auto& r : gpulab::cpu::shared_memory_regions_of_all_workers()) {
    const auto b = reinterpret_cast<uintptr_t>(r.begin);
    EXPECT_EQ(b % page, 0u);
    EXPECT_EQ(r.bytes % page, 0u);
    found = found || (!r.dynamic && left >= b && left + 64 * sizeof(float) <= b + r.bytes &&
                      std::string(r.name) == "left");
    dynamic = dynamic || r.dynamic;
  }
  EXPECT_TRUE(found) << "no static region holds left[64]";
  EXPECT_TRUE(dynamic) << "no dynamic shared buffer listed";
  bool own_dynamic = false;
  for (const auto& r : gpulab::cpu::shared_memory_regions()) own_dynamic = own_dynamic || r.dynamic;
  EXPECT_TRUE(own_dynamic);
}

}  // namespace
