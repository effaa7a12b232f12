// First line of every file that gpulab-cu2cpp generates: nvcc includes cuda_runtime.h implicitly in every .cu
// file, so student code may rely on it without including it.
#pragma once
#include <cuda_runtime.h>
// `__CUDA_ARCH__` has no single value in CPU execution mode (nvcc's device pass defines it, its host pass does
// not). gpulab-cu2cpp rewrites it to GPULAB_CPU_CUDA_ARCH inside __global__/__device__ function bodies and
// refuses it elsewhere; this catches it in headers the rewriter never saw (error: attempt to use poisoned
// "__CUDA_ARCH__": see grader/cpu/README.md, "__CUDA_ARCH__").
#pragma GCC poison __CUDA_ARCH__
