// REFUSED: a macro nvcc defines in its device pass alone (a CUDA header's include guard), used like __CUDA_ARCH__
// at file scope.
#include "kernels.h"

#if defined(__SM_90_RT_HPP__)
#define READS 1
#else
#define READS 3
#endif

__global__ void device_pass_kernel(int* out) { out[0] = READS; }
