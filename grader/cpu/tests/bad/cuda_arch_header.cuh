// Included by unsupported_cuda_arch_in_header.cu but not listed in gpulab_cpu_add_cuda_sources: the rewriter never sees it.
#pragma once
__device__ inline int header_side() {
#ifdef __CUDA_ARCH__
  return 1;
#else
  return 2;
#endif
}
