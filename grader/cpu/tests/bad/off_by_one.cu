// PLANTED BUG: `i <= n` writes one element past the end of the output buffer.
#include "kernels.h"

__global__ void fill_kernel(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = 1.0f;
}

cudaError_t fill_off_by_one(float* out, int n) {
  fill_kernel<<<(n + 255) / 256, 256>>>(out, n);
  return cudaGetLastError();
}
