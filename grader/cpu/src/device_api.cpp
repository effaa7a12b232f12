// Device management, streams and events of CPU execution mode. There is exactly one "device": the CPU.
// Launches and copies are synchronous, so streams only need to exist and events record wall-clock time.
#include <unistd.h>
#include <chrono>
#include <cstring>
#include "internal.h"

struct CUstream_st {
  unsigned int flags;
};
struct CUevent_st {
  std::chrono::steady_clock::time_point when;
  bool recorded;
};

namespace gpulab::cpu {
namespace {
int l2_cache_bytes() {
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return l2 > 0 ? static_cast<int>(l2) : (1 << 20);
}
cudaError_t check_device(int device) {
  return device == 0 ? cudaSuccess
                     : fail(cudaErrorInvalidDevice, format("device %d does not exist in CPU execution mode (only 0)", device));
}
}  // namespace
}  // namespace gpulab::cpu

using namespace gpulab::cpu;

extern "C" cudaError_t cudaDeviceSynchronize(void) { return sticky_error(); }

extern "C" cudaError_t cudaDeviceReset(void) {
  // Like destroying a CUDA context: all device memory goes away and a sticky error is forgotten.
  free_all_allocations();
  clear_sticky_error();
  return cudaSuccess;
}

extern "C" cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
extern "C" cudaError_t cudaSetDevice(int device) {
  if (cudaError_t s = sticky_error()) return s;
  return check_device(device);
}
extern "C" cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return sticky_error();
}

extern "C" cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (cudaError_t e = check_device(device)) return e;
  std::memset(p, 0, sizeof *p);
  std::strncpy(p->name, "CPU execution (gpulab)", sizeof p->name - 1);
  size_t free_b = 0, total = 0;
  cudaMemGetInfo(&free_b, &total);
  p->totalGlobalMem = total;
  p->sharedMemPerBlock = 48 << 10;
  p->sharedMemPerBlockOptin = 227 << 10;
  p->sharedMemPerMultiprocessor = 228 << 10;
  p->regsPerBlock = 65536;
  p->regsPerMultiprocessor = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->clockRate = 1000000;
  p->totalConstMem = 64 << 10;
  // The compute capability whose limits CPU mode enforces (the course's H100); no sm_90 code runs here.
  p->major = 9;
  p->minor = 0;
  p->textureAlignment = 512;
  p->multiProcessorCount = worker_count();  // one "SM" per worker thread
  p->concurrentKernels = 0;
  p->asyncEngineCount = 0;
  p->unifiedAddressing = 1;
  p->managedMemory = 1;
  p->canMapHostMemory = 1;
  p->integrated = 1;
  p->memoryClockRate = 1000000;
  p->memoryBusWidth = 64;
  p->l2CacheSize = l2_cache_bytes();
  p->maxThreadsPerMultiProcessor = 2048;
  p->maxBlocksPerMultiProcessor = 32;
  return cudaSuccess;
}

extern "C" cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (cudaError_t e = check_device(device)) return e;
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, device);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = static_cast<int>(p.sharedMemPerBlock); break;
    case cudaDevAttrTotalConstantMemory: *value = static_cast<int>(p.totalConstMem); break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *value = p.clockRate; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrUnifiedAddressing: *value = 1; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = static_cast<int>(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrManagedMemory: *value = 1; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = static_cast<int>(p.sharedMemPerBlockOptin); break;
    default:
      return fail(cudaErrorNotSupported,
                  format("cudaDeviceGetAttribute: attribute %d is not supported in CPU execution mode", int(attr)));
  }
  return cudaSuccess;
}

extern "C" cudaError_t cudaDriverGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
extern "C" cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
extern "C" cudaError_t cudaDeviceSetLimit(cudaLimit, size_t) { return sticky_error(); }
extern "C" cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  *value = limit == cudaLimitStackSize ? 1024 : (1 << 20);
  return sticky_error();
}
extern "C" cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return sticky_error(); }
extern "C" cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return sticky_error(); }

extern "C" cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, 0); }
extern "C" cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  if (cudaError_t s = sticky_error()) return s;
  *stream = new CUstream_st{flags};
  return cudaSuccess;
}
extern "C" cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
    return fail(cudaErrorInvalidResourceHandle, "cudaStreamDestroy: not a stream from cudaStreamCreate");
  delete stream;
  return sticky_error();
}
extern "C" cudaError_t cudaStreamSynchronize(cudaStream_t) { return sticky_error(); }
extern "C" cudaError_t cudaStreamQuery(cudaStream_t) { return sticky_error(); }
extern "C" cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) { return sticky_error(); }

extern "C" cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, 0); }
extern "C" cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
  if (cudaError_t s = sticky_error()) return s;
  *event = new CUevent_st{{}, false};
  return cudaSuccess;
}
extern "C" cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  if (cudaError_t s = sticky_error()) return s;
  if (!event) return fail(cudaErrorInvalidResourceHandle, "cudaEventRecord: null event");
  event->when = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}
extern "C" cudaError_t cudaEventSynchronize(cudaEvent_t) { return sticky_error(); }
extern "C" cudaError_t cudaEventQuery(cudaEvent_t) { return sticky_error(); }
extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (cudaError_t s = sticky_error()) return s;
  if (!start || !end) return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: null event");
  if (!start->recorded || !end->recorded)
    return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event was never recorded");
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}
extern "C" cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return sticky_error();
}

extern "C" cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t) {
  return not_supported("cudaLaunchKernel (use the <<<...>>> syntax, which CPU mode rewrites)");
}
