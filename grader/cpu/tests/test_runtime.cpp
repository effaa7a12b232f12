// The host runtime API of CPU mode behaves like CUDA's where graders depend on it.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include "test_util.h"

namespace {
using ::testing::HasSubstr;

TEST_F(CpuMode, DeviceProperties) {
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  EXPECT_EQ(count, 1);
  cudaDeviceProp p;
  CUDA_OK(cudaGetDeviceProperties(&p, 0));
  // The GPU's answers (test_gpu_answers.cpp holds every one to the recording), never the CPU's own.
  EXPECT_THAT(p.name, ::testing::Not(HasSubstr("CPU")));
  EXPECT_EQ(p.sharedMemPerBlock, 48u << 10);
  EXPECT_EQ(p.maxThreadsPerBlock, 1024);
  EXPECT_EQ(p.warpSize, 32);
  EXPECT_GT(p.multiProcessorCount, 0);
  EXPECT_GT(p.totalGlobalMem, 0u);
  int v = 0;
  CUDA_OK(cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, 0));
  EXPECT_GT(v, 0);
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // not sticky
}

TEST_F(CpuMode, ErrorStrings) {
  EXPECT_STREQ(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorIllegalAddress), "an illegal memory access was encountered");
  EXPECT_EQ(int(cudaErrorLaunchFailure), 719);
}

TEST_F(CpuMode, BadLaunchConfigurationIsNotSticky) {
  DeviceBuffer<float> in(4), out(4);
  EXPECT_EQ(stencil1d_dynamic(in.get(), out.get(), 4, 1, 1, 1, 2048, nullptr), cudaErrorInvalidConfiguration);
  EXPECT_THAT(gpulab::cpu::last_error_detail(), HasSubstr("stencil1d_dynamic_kernel"));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(stencil1d_dynamic(in.get(), out.get(), 4, 1, 1, 1, 32, nullptr), cudaSuccess);
}

TEST_F(CpuMode, MemcpyChecksDeviceRanges) {
  DeviceBuffer<float> d(10);
  std::vector<float> h(20, 1.0f);
  EXPECT_EQ(cudaMemcpy(d.get(), h.data(), 20 * sizeof(float), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(h.data(), h.data() + 10, 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(d.get(), h.data(), 10 * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemset(d.get(), 0, 11 * sizeof(float)), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(h.data()), cudaErrorInvalidValue);
}

// A size computed from a negative width (size_t(-4)) or larger than the device: an error, like a GPU's,
// not a crash; and not sticky.
TEST_F(CpuMode, ImpossibleMallocIsAnAllocationError) {
  void* p = reinterpret_cast<void*>(1);
  for (size_t size : {size_t(-4), size_t(-1), size_t(-4096), SIZE_MAX / 2 + 1, size_t(1) << 60}) {
    EXPECT_EQ(cudaMalloc(&p, size), cudaErrorMemoryAllocation) << size;
    EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
  }
  EXPECT_THAT(gpulab::cpu::last_error_detail(), HasSubstr("more than the device"));
  size_t pitch = 0;
  EXPECT_EQ(cudaMallocPitch(&p, &pitch, size_t(-4), 3), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaMalloc(&p, int(-4) * sizeof(float)), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
  DeviceBuffer<float> fine(16);
  EXPECT_TRUE(fine.ok());
}

// Fresh device memory holds garbage on a GPU: here a pattern that is NaN as float and double and has no
// zero byte, so a kernel that reads memory nobody wrote fails as it would on a GPU.
TEST_F(CpuMode, FreshMemoryIsNotZero) {
  for (size_t n : {size_t(1), size_t(3), size_t(4), size_t(7), size_t(4096), size_t(100003)}) {
    DeviceBuffer<unsigned char> bytes(n);
    ASSERT_TRUE(bytes.ok());
    for (unsigned char b : bytes.download()) ASSERT_NE(b, 0) << "buffer of " << n << " bytes";
  }
  DeviceBuffer<float> f(1001);
  for (float v : f.download()) ASSERT_TRUE(std::isnan(v));
  DeviceBuffer<double> d(333);
  for (double v : d.download()) ASSERT_TRUE(std::isnan(v));
  DeviceBuffer<unsigned char> poisonlike(64);
  auto h = poisonlike.download();
  EXPECT_FALSE(std::all_of(h.begin(), h.end(), [](unsigned char b) { return b == 0xFF; }))
      << "fresh memory must not look like the grader's poison (all bits set)";
}

TEST_F(CpuMode, EventsMeasureWallClock) {
  cudaEvent_t a, b;
  CUDA_OK(cudaEventCreate(&a));
  CUDA_OK(cudaEventCreate(&b));
  CUDA_OK(cudaEventRecord(a));
  CUDA_OK(cudaEventRecord(b));
  CUDA_OK(cudaEventSynchronize(b));
  float ms = -1;
  CUDA_OK(cudaEventElapsedTime(&ms, a, b));
  EXPECT_GE(ms, 0.0f);
  CUDA_OK(cudaEventDestroy(a));
  CUDA_OK(cudaEventDestroy(b));
}

TEST_F(CpuMode, RewriterHandlesUnusualSpellings) {
  DeviceBuffer<float> p(32);
  CUDA_OK(rewriter_cases(p.get()));
  for (float v : p.download()) EXPECT_EQ(v, 12.0f);
}

}  // namespace
