// Included by unsupported_mode_in_header.cu but not listed in gpulab_cpu_add_cuda_sources: the rewriter never sees it.
#pragma once
__device__ inline int mode_side() {
#if defined(GPULAB_CPU_MODE)
  return 1;
#else
  return 2;
#endif
}
