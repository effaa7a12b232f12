// Plain data types of the CUDA runtime API (vector types, dim3, error codes, enums, structs),
// re-declared for CPU execution mode. Values of enums match CUDA 13 so that codes printed in CPU mode
// mean the same thing as on a GPU.
#pragma once
#include <cstddef>
#include <cstdint>

#define CUDART_VERSION 13000
#define GPULAB_CPU_MODE_RUNTIME 1

// ---- vector types: same member names, sizes and alignments as CUDA's vector_types.h ----
#define GPULAB_VEC1(T, N) struct N##1 { T x; };
#define GPULAB_VEC2(T, N, A) struct alignas(A) N##2 { T x, y; };
#define GPULAB_VEC3(T, N) struct N##3 { T x, y, z; };
#define GPULAB_VEC4(T, N, A) struct alignas(A) N##4 { T x, y, z, w; };
#define GPULAB_VECS(T, N, A2, A4) GPULAB_VEC1(T, N) GPULAB_VEC2(T, N, A2) GPULAB_VEC3(T, N) GPULAB_VEC4(T, N, A4) \
  inline N##1 make_##N##1(T x) { return {x}; }                                                           \
  inline N##2 make_##N##2(T x, T y) { return {x, y}; }                                                   \
  inline N##3 make_##N##3(T x, T y, T z) { return {x, y, z}; }                                           \
  inline N##4 make_##N##4(T x, T y, T z, T w) { return {x, y, z, w}; }
GPULAB_VECS(signed char, char, 2, 4)
GPULAB_VECS(unsigned char, uchar, 2, 4)
GPULAB_VECS(short, short, 4, 8)
GPULAB_VECS(unsigned short, ushort, 4, 8)
GPULAB_VECS(int, int, 8, 16)
GPULAB_VECS(unsigned int, uint, 8, 16)
GPULAB_VECS(long long, longlong, 16, 16)
GPULAB_VECS(unsigned long long, ulonglong, 16, 16)
GPULAB_VECS(float, float, 8, 16)
GPULAB_VECS(double, double, 16, 16)
#undef GPULAB_VEC1
#undef GPULAB_VEC2
#undef GPULAB_VEC3
#undef GPULAB_VEC4
#undef GPULAB_VECS

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// ---- error codes, device attributes, limits, cudaDeviceProp, cudaFuncAttributes: CUDA's own, generated ----
#include "cuda_declarations.h"

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9
};

enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault = 0, cudaSharedMemBankSizeFourByte = 1, cudaSharedMemBankSizeEightByte = 2 };

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaMemAttachGlobal 0x01

// Streams and events are opaque handles, as in CUDA.
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

struct cudaPitchedPtr { void* ptr; size_t pitch; size_t xsize; size_t ysize; };
struct cudaExtent { size_t width, height, depth; };
