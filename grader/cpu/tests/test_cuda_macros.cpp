// nvcc's macros of both passes in CPU execution mode (issue 34, item 3; gpulab_cpu/prelude.h). What asks which
// mode code runs in (GPULAB_CPU_MODE and the like) is refused: build tests in CMakeLists.txt
// (cpu_mode.unsupported_mode_*).
#include "test_util.h"

namespace {
// Issue 34, item 3: code that tests __CUDACC__ or __NVCC__ takes nvcc's path in CPU execution mode.
TEST_F(CpuMode, NvccMacrosAreDefinedAsByNvcc) {
  DeviceBuffer<int> out(6);
  CUDA_OK(cuda_macros_values(out.get()));
  auto h = out.download();
  EXPECT_EQ(h[0], 1) << "#ifdef __CUDACC__ in a kernel";
  EXPECT_EQ(h[1], 1) << "#ifndef __NVCC__ in a kernel";
  EXPECT_EQ(h[2], 1300) << "__CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ in a __device__ function (nvcc 13.0)";
  EXPECT_EQ(h[3], 900) << "__CUDA_ARCH_LIST__ (the course's build: sm_90)";
  EXPECT_EQ(h[4], 13000) << "__CUDART_API_VERSION, from __CUDA_API_VER_MAJOR__/MINOR__";
  EXPECT_EQ(h[5], 1) << "#if defined(__CUDACC__) in host code";
}
}  // namespace
