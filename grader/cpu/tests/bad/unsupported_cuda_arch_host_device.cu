// REFUSED: __CUDA_ARCH__ in a __host__ __device__ function (nvcc compiles it twice; CPU mode once).
#include "kernels.h"

__host__ __device__ inline int side() {
#ifdef __CUDA_ARCH__
  return 1;
#else
  return 2;
#endif
}

__global__ void side_kernel(int* out) { out[0] = side(); }
