// First line of every file that gpulab-cu2cpp generates: nvcc includes cuda_runtime.h implicitly in every .cu
// file, so student code may rely on it without including it.
#pragma once
#include <cuda_runtime.h>

// What nvcc defines on the command line of BOTH its passes (host and device), read from `nvcc --dryrun` of
// CUDA 13.0 (V13.0.88) for the course's build (-gencode arch=compute_90,code=[compute_90,sm_90]): student code
// sees them here as it does under nvcc (issue 34, item 3: device code must see what nvcc's device pass sees).
// Defined after the runtime's own headers, in the student's translation units only, so no grader translation unit
// and none of the runtime's declarations change: a libstdc++ header that tests __CUDACC__ (to leave out __float128)
// and that the student's code includes first (<numbers>) behaves as under nvcc; those the runtime included already
// (<type_traits>, glibc's <bits/floatn.h>: __HAVE_FLOAT128 stays 1) keep the host compiler's view. Not defined, as under nvcc for sm_90: __CUDA_ARCH_SPECIFIC__,
// __CUDA_ARCH_FAMILY_SPECIFIC__, __CUDA_ARCH_FEAT_SM90_ALL (sm_90a only), __CUDACC_RDC__, __CUDACC_DEBUG__,
// __CUDACC_EXTENDED_LAMBDA__, __CUDACC_RELAXED_CONSTEXPR__, __CUDACC_RTC__ (flags the course's build never gives).
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 88
#define __CUDA_API_VER_MAJOR__ 13
#define __CUDA_API_VER_MINOR__ 0
#define __CUDA_ARCH_LIST__ 900
#define __NVCC_DIAG_PRAGMA_SUPPORT__ 1
#define __CUDACC_DEVICE_ATOMIC_BUILTINS__ 1
// And what CUDA 13.0's headers define from them, in both passes, that code might test.
#define __CUDACC_VER__ \
  "__CUDACC_VER__ is no longer supported.  Use __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, and __CUDACC_VER_BUILD__ instead."
#define __CUDART_API_VERSION ((__CUDA_API_VER_MAJOR__ * 1000) + (__CUDA_API_VER_MINOR__ * 10))
#define __CUDA_HAS_ARCH_SPECIFIC(N) 0
#define __CUDA_HAS_ARCH_FAMILY_SPECIFIC(N) 0
#define __CUDA_ARCH_HAS_FEATURE__(_FEAT) __CUDA_ARCH_FEAT_##_FEAT

// `__CUDA_ARCH__` has no single value in CPU execution mode (nvcc's device pass defines it, its host pass does
// not). gpulab-cu2cpp rewrites it to GPULAB_CPU_CUDA_ARCH inside __global__/__device__ function bodies and
// refuses it elsewhere; this catches it in headers the rewriter never saw (error: attempt to use poisoned
// "__CUDA_ARCH__": see grader/cpu/README.md, "What device code sees"). The other macros nvcc's device pass alone
// defines (CUDA 13.0: CUDA_DOUBLE_MATH_FUNCTIONS on its command line, the include guards of the device-side CUDA
// headers) would tell the passes apart the same way: the rewriter refuses them, and so does this.
#pragma GCC poison __CUDA_ARCH__ CUDA_DOUBLE_MATH_FUNCTIONS __CUDA_AND_AT_LEAST_SM_70__ __CUDA_AND_AT_LEAST_SM_75__
#pragma GCC poison __DEVICE_ATOMIC_FUNCTIONS_HPP__ __SM_20_ATOMIC_FUNCTIONS_HPP__ __SM_20_INTRINSICS_HPP__
#pragma GCC poison __SM_30_INTRINSICS_HPP__ __SM_32_ATOMIC_FUNCTIONS_HPP__ __SM_32_INTRINSICS_HPP__
#pragma GCC poison __SM_60_ATOMIC_FUNCTIONS_HPP__ __SM_61_INTRINSICS_HPP__ __SM_70_RT_HPP__ __SM_80_RT_HPP__
#pragma GCC poison __SM_90_RT_HPP__ __SM_100_RT_HPP__

// GPULAB_CPU_MODE (a compile definition of gpulab_cpu_runtime, for the grader's own code) would let student code
// ask which mode it runs in and compute differently where it is counted. Gone from here on: gpulab-cu2cpp refuses
// it in the files it rewrites, with a message saying why, and this catches it in headers it never saw.
#undef GPULAB_CPU_MODE
#undef GPULAB_CPU_MODE_RUNTIME
#pragma GCC poison GPULAB_CPU_MODE GPULAB_CPU_MODE_RUNTIME
