// REFUSED: threadIdx is a macro in CPU execution mode and a variable under nvcc: #ifdef tells the modes apart.
#include "kernels.h"

__global__ void cpu_only_macro_kernel(int* out) {
#ifdef threadIdx
  out[0] = 1;
#else
  out[0] = 2;
#endif
}
