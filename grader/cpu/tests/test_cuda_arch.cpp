// __CUDA_ARCH__ in CPU execution mode (issue 34, item 3; tools/cu2cpp.cpp, rewrite_cuda_arch). The forms it
// refuses are build tests in CMakeLists.txt (cpu_mode.unsupported_cuda_arch_*).
#include "test_util.h"

namespace {
// Issue 34, item 3: a kernel body that depends on __CUDA_ARCH__ takes the GPU's path in CPU execution mode.
TEST_F(CpuMode, CudaArchIsDefinedInDeviceCode) {
  DeviceBuffer<int> out(4);
  CUDA_OK(cuda_arch_values(out.get()));
  auto h = out.download();
  EXPECT_EQ(h[0], 1) << "#ifdef __CUDA_ARCH__ in a kernel";
  EXPECT_EQ(h[1], 900) << "__CUDA_ARCH__'s value";
  EXPECT_EQ(h[2], 10) << "#if __CUDA_ARCH__ >= 800 in a __device__ function";
  EXPECT_EQ(h[3], 1) << "in a lambda inside a kernel";
}
}  // namespace
