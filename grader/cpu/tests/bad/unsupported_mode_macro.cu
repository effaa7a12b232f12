// REFUSED: a kernel that asks whether it runs in CPU execution mode (where every read count is taken) and reads
// less there than on the GPU.
#include "kernels.h"

__global__ void mode_kernel(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
#ifdef GPULAB_CPU_MODE
  out[i] = 0.0f;
#else
  out[i] = in[i];
#endif
}
