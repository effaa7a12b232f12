// A device-side assert() that fails: must become cudaErrorAssert, not abort the process.
#undef NDEBUG  // the assert must be live whatever the build type
#include <cassert>
#include "kernels.h"

__global__ void assert_kernel(const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(in[i] >= 0.0f);
}

cudaError_t device_assert_negative(const float* in, int n) {
  assert_kernel<<<(n + 63) / 64, 64>>>(in, n);
  return cudaGetLastError();
}
