// Host-side CUDA runtime API of CPU execution mode. Declarations only; the implementations live in
// libgpulab_cpu_runtime (one shared library so that the grader and a dlopen'ed student library share one
// device heap and one error state). C linkage like CUDA's runtime, with C++ template conveniences on top.
#pragma once
#include "types.h"

extern "C" {
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);

cudaError_t cudaMalloc(void** devPtr, size_t size);
cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal);
cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height);
cudaError_t cudaFree(void* devPtr);
cudaError_t cudaMallocHost(void** ptr, size_t size);
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemGetInfo(size_t* free, size_t* total);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind);
cudaError_t cudaMemset(void* devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream = 0);

cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaDriverGetVersion(int* driverVersion);
cudaError_t cudaRuntimeGetVersion(int* runtimeVersion);
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config);
cudaError_t cudaGetDeviceFlags(unsigned int* flags);
cudaError_t cudaDeviceGetPCIBusId(char* pciBusId, int len, int device);
cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config);

cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);

cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

// Launching through this entry point needs the kernel's parameter types, which CPU mode only learns from
// a <<<...>>> launch; it returns cudaErrorNotSupported with a message.
cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                             cudaStream_t stream);
}  // extern "C"

namespace gpulab::cpu {
// Untyped backends of the templates below.
cudaError_t memcpy_symbol(void* symbol, size_t symbol_size, void* other, size_t count, size_t offset,
                          cudaMemcpyKind kind, bool to_symbol);
cudaError_t func_get_attributes(cudaFuncAttributes* attr, const void* func);
cudaError_t func_set_attribute(const void* func, cudaFuncAttribute attr, int value);
cudaError_t occupancy_max_active_blocks(int* blocks, const void* func, int block_size, size_t dynamic_shared,
                                        unsigned int flags);
cudaError_t occupancy_max_potential_block_size(int* min_grid_size, int* block_size, const void* func,
                                               size_t (*dynamic_shared_for)(int block, const void* context),
                                               const void* context, int block_size_limit, unsigned int flags);
cudaError_t not_supported(const char* what);
// The seed that orders threads within a block (env GPULAB_CPU_SEED); print it next to a failure.
unsigned long long scheduling_seed();
// Overrides the seed for later launches (tests that try several seeds in one process).
void set_scheduling_seed(unsigned long long seed);
// A one-line description of the last error this runtime reported (empty if none), for graders.
const char* last_error_detail();
}  // namespace gpulab::cpu

template <class T>
inline cudaError_t cudaMalloc(T** devPtr, size_t size) {
  return cudaMalloc(reinterpret_cast<void**>(devPtr), size);
}
template <class T>
inline cudaError_t cudaMallocManaged(T** devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal) {
  return cudaMallocManaged(reinterpret_cast<void**>(devPtr), size, flags);
}
template <class T>
inline cudaError_t cudaMallocHost(T** ptr, size_t size) {
  return cudaMallocHost(reinterpret_cast<void**>(ptr), size);
}
template <class T>
inline cudaError_t cudaMallocPitch(T** devPtr, size_t* pitch, size_t width, size_t height) {
  return cudaMallocPitch(reinterpret_cast<void**>(devPtr), pitch, width, height);
}

// __constant__ and __device__ variables are ordinary globals in CPU mode, so a symbol is its own address.
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count, size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return gpulab::cpu::memcpy_symbol((void*)&symbol, sizeof(T), const_cast<void*>(src), count, offset, kind, true);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count, size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t = 0) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return gpulab::cpu::memcpy_symbol((void*)&symbol, sizeof(T), dst, count, offset, kind, false);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t = 0) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
template <class T>
inline cudaError_t cudaGetSymbolAddress(void** devPtr, const T& symbol) {
  *devPtr = (void*)&symbol;
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaGetSymbolSize(size_t* size, const T&) {
  *size = sizeof(T);
  return cudaSuccess;
}

// The device's and the build's facts are the GPU's (ptxVersion, binaryVersion, the dynamic shared memory the
// kernel may use); registers, local memory and constant memory belong to a GPU binary, which does not exist in CPU
// mode: 0, and the static shared memory its blocks reached so far (README.md, "What can still differ from a GPU").
template <class T>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, T* func) {
  return gpulab::cpu::func_get_attributes(attr, reinterpret_cast<const void*>(func));
}
template <class T>
inline cudaError_t cudaFuncSetAttribute(T* func, cudaFuncAttribute attr, int value) {
  return gpulab::cpu::func_set_attribute(reinterpret_cast<const void*>(func), attr, value);
}
template <class T>
inline cudaError_t cudaFuncSetCacheConfig(T*, cudaFuncCache) {
  return cudaSuccess;
}
// The occupancy calculator of the GPU this runtime answers as: resident warps, blocks and shared memory per SM.
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, T* func, int blockSize,
                                                                size_t dynamicSMemSize) {
  return gpulab::cpu::occupancy_max_active_blocks(numBlocks, reinterpret_cast<const void*>(func), blockSize,
                                                  dynamicSMemSize, cudaOccupancyDefault);
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, T* func, int blockSize,
                                                                         size_t dynamicSMemSize, unsigned int flags) {
  return gpulab::cpu::occupancy_max_active_blocks(numBlocks, reinterpret_cast<const void*>(func), blockSize,
                                                  dynamicSMemSize, flags);
}
template <class UnaryFunction, class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(int* minGridSize, int* blockSize, T func,
                                                                          UnaryFunction blockSizeToDynamicSMemSize,
                                                                          int blockSizeLimit = 0,
                                                                          unsigned int flags = cudaOccupancyDefault) {
  const auto shared_for = [](int block, const void* f) -> size_t {
    return static_cast<size_t>((*static_cast<const UnaryFunction*>(f))(block));
  };
  return gpulab::cpu::occupancy_max_potential_block_size(minGridSize, blockSize, reinterpret_cast<const void*>(func),
                                                         shared_for, &blockSizeToDynamicSMemSize, blockSizeLimit,
                                                         flags);
}
template <class UnaryFunction, class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int* minGridSize, int* blockSize, T func,
                                                                 UnaryFunction blockSizeToDynamicSMemSize,
                                                                 int blockSizeLimit = 0) {
  return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(minGridSize, blockSize, func,
                                                                 blockSizeToDynamicSMemSize, blockSizeLimit);
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int* minGridSize, int* blockSize, T func,
                                                              size_t dynamicSMemSize = 0, int blockSizeLimit = 0,
                                                              unsigned int flags = cudaOccupancyDefault) {
  return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
      minGridSize, blockSize, func, [dynamicSMemSize](int) { return dynamicSMemSize; }, blockSizeLimit, flags);
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, T func,
                                                     size_t dynamicSMemSize = 0, int blockSizeLimit = 0) {
  return cudaOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, dynamicSMemSize, blockSizeLimit);
}
