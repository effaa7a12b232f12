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

// ---- error codes (values from CUDA 13 driver_types.h) ----
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorCudartUnloading = 4,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidHostPointer = 16,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidTexture = 18,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorMissingConfiguration = 52,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidKernelImage = 200,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorECCUncorrectable = 214,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401,
  cudaErrorSymbolNotFound = 500,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorAssert = 710,
  cudaErrorHardwareStackError = 714,
  cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716,
  cudaErrorInvalidAddressSpace = 717,
  cudaErrorInvalidPc = 718,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotPermitted = 800,
  cudaErrorNotSupported = 801,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9
};

enum cudaFuncCache { cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1, cudaFuncCachePreferL1 = 2, cudaFuncCachePreferEqual = 3 };
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault = 0, cudaSharedMemBankSizeFourByte = 1, cudaSharedMemBankSizeEightByte = 2 };
enum cudaLimit { cudaLimitStackSize = 0, cudaLimitPrintfFifoSize = 1, cudaLimitMallocHeapSize = 2 };

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

// The fields most course code reads; CPU mode fills them with honest values (see device_api.cpp).
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryClockRate;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
};

struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
};

struct cudaPitchedPtr { void* ptr; size_t pitch; size_t xsize; size_t ysize; };
struct cudaExtent { size_t width, height, depth; };
