// UNSUPPORTED: texture objects. Building this file in CPU mode must fail with a message naming tex2D.
#include "kernels.h"

__global__ void sample(cudaTextureObject_t tex, float* out, int w) {
  int x = threadIdx.x;
  out[x] = tex2D<float>(tex, x + 0.5f, 0.5f);
}

void launch_sample(cudaTextureObject_t tex, float* out) { sample<<<1, 32>>>(tex, out, 32); }
