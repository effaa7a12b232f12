// REFUSED: GPULAB_CPU_MODE in a header the rewriter never saw (caught by the prelude's #pragma GCC poison).
#include "kernels.h"
#include "mode_header.cuh"

__global__ void mode_header_kernel(int* out) { out[0] = mode_side(); }
