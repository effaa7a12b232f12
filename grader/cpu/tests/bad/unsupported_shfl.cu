// UNSUPPORTED: warp shuffle. Building this file in CPU mode must fail with a message naming __shfl_down_sync.
#include "kernels.h"

__global__ void warp_sum(const float* in, float* out) {
  float v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x == 0) *out = v;
}

void launch_warp_sum(const float* in, float* out) { warp_sum<<<1, 32>>>(in, out); }
