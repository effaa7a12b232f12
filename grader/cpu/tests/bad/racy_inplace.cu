// PLANTED BUG: a smoothing step updated in place; neighbours may already hold new values (a race).
#include "kernels.h"

__global__ void smooth_inplace_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) x[i] = 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
}

cudaError_t smooth_inplace(float* x, int n) {
  smooth_inplace_kernel<<<(n + 127) / 128, 128>>>(x, n);
  return cudaGetLastError();
}
