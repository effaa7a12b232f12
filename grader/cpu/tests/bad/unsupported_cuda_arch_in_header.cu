// REFUSED: __CUDA_ARCH__ in a header the rewriter never saw (caught by the prelude's #pragma GCC poison).
#include "kernels.h"
#include "cuda_arch_header.cuh"

__global__ void header_kernel(int* out) { out[0] = header_side(); }
