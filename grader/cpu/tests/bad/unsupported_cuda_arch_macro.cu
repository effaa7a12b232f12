// REFUSED: a macro defined from __CUDA_ARCH__ (its value would depend on where it is used), even in a kernel.
#include "kernels.h"

__global__ void macro_kernel(int* out) {
#define ARCH_OF_THIS_PASS __CUDA_ARCH__
  out[0] = ARCH_OF_THIS_PASS;
}
