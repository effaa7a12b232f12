// UNSUPPORTED: inline PTX. Building this file in CPU mode must fail with a message naming asm.
#include "kernels.h"

__global__ void lane_ids(unsigned* out) {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  out[threadIdx.x] = lane;
}

void launch_lane_ids(unsigned* out) { lane_ids<<<1, 32>>>(out); }
