// REFUSED: __CUDA_ARCH__ at file scope, choosing what a kernel does.
#include "kernels.h"

#ifdef __CUDA_ARCH__
#define TILE_READS 1
#else
#define TILE_READS 0
#endif

__global__ void mode_kernel(int* out) { out[0] = TILE_READS; }
