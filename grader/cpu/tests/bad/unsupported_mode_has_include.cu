// REFUSED: telling CPU execution mode apart by its headers.
#include "kernels.h"

#if __has_include(<gpulab_cpu/runtime.h>)
#define ON_THE_CPU 1
#else
#define ON_THE_CPU 0
#endif

__global__ void has_include_kernel(int* out) { out[0] = ON_THE_CPU; }
