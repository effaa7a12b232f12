// Device management, streams and events of CPU execution mode. There is exactly one device, and every question
// about it gets the answer of the GPU this runtime answers as (gpu_answers.h): the lab's GPU, never the CPU that runs
// the kernels. Launches and copies are synchronous, so streams only need to exist and events record wall-clock time.
#include <unistd.h>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include "gpu_answers.h"
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
// A grading process sees one GPU (the runner gives each its own), so this runtime has one device: number 0.
cudaError_t check_device(int device, const char* call) {
  return device == 0 ? cudaSuccess
                     : fail(gpu_answers().bad_device, format("%s: device %d does not exist (the only one is 0)", call,
                                                             device));
}

// What cudaDeviceSetLimit and cudaDeviceSetCacheConfig set, read back by their getters as on a GPU.
std::mutex g_settings_mutex;
std::map<int, size_t> g_limits;  // guarded by g_settings_mutex
int g_cache_config = -1;         // guarded by g_settings_mutex; -1: the GPU's default
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
  if (!count) return fail(cudaErrorInvalidValue, "cudaGetDeviceCount: count is null");
  *count = 1;
  return cudaSuccess;
}
extern "C" cudaError_t cudaSetDevice(int device) {
  if (cudaError_t s = sticky_error()) return s;
  return check_device(device, "cudaSetDevice");
}
extern "C" cudaError_t cudaGetDevice(int* device) {
  if (!device) return fail(cudaErrorInvalidValue, "cudaGetDevice: device is null");
  *device = 0;
  return sticky_error();
}

extern "C" cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (cudaError_t e = check_device(device, "cudaGetDeviceProperties")) return e;
  if (!p) return fail(cudaErrorInvalidValue, "cudaGetDeviceProperties: prop is null");
  *p = gpu_answers().prop;
  return cudaSuccess;
}

extern "C" cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (cudaError_t e = check_device(device, "cudaDeviceGetAttribute")) return e;
  if (!value) return fail(cudaErrorInvalidValue, "cudaDeviceGetAttribute: value is null");
  const Answer a = gpu_answers().attribute(attr);
  if (!a.ok)
    return fail(a.error, format("cudaDeviceGetAttribute: the GPU answers attribute %d with an error too", int(attr)));
  *value = static_cast<int>(a.value);
  return cudaSuccess;
}

extern "C" cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (!flags) return fail(cudaErrorInvalidValue, "cudaGetDeviceFlags: flags is null");
  const Answer a = gpu_answers().device_flags;
  if (!a.ok) return fail(a.error, "cudaGetDeviceFlags: the GPU answers with an error too");
  *flags = static_cast<unsigned int>(a.value);
  return sticky_error();
}

extern "C" cudaError_t cudaDeviceGetPCIBusId(char* id, int len, int device) {
  if (cudaError_t e = check_device(device, "cudaDeviceGetPCIBusId")) return e;
  if (!id || len <= 0) return fail(cudaErrorInvalidValue, "cudaDeviceGetPCIBusId: no room for the bus id");
  set_text(id, static_cast<size_t>(len), gpu_answers().pci_bus_id.c_str());
  return cudaSuccess;
}

extern "C" cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = gpu_answers().stream_priority_least;
  if (greatest) *greatest = gpu_answers().stream_priority_greatest;
  return sticky_error();
}

extern "C" cudaError_t cudaDriverGetVersion(int* v) {
  if (!v) return fail(cudaErrorInvalidValue, "cudaDriverGetVersion: driverVersion is null");
  *v = gpu_answers().driver_version;
  return cudaSuccess;
}
extern "C" cudaError_t cudaRuntimeGetVersion(int* v) {
  if (!v) return fail(cudaErrorInvalidValue, "cudaRuntimeGetVersion: runtimeVersion is null");
  *v = gpu_answers().runtime_version;
  return cudaSuccess;
}

extern "C" cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  if (cudaError_t s = sticky_error()) return s;
  const Answer a = gpu_answers().limit(limit);
  if (!a.ok) return fail(a.error, format("cudaDeviceSetLimit: the GPU has no limit %d to set", int(limit)));
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  g_limits[limit] = value;
  return cudaSuccess;
}
extern "C" cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  if (cudaError_t s = sticky_error()) return s;
  if (!value) return fail(cudaErrorInvalidValue, "cudaDeviceGetLimit: pValue is null");
  const Answer a = gpu_answers().limit(limit);
  if (!a.ok) return fail(a.error, format("cudaDeviceGetLimit: the GPU answers limit %d with an error too", int(limit)));
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  const auto set = g_limits.find(limit);
  *value = set != g_limits.end() ? set->second : static_cast<size_t>(a.value);
  return cudaSuccess;
}
extern "C" cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config) {
  if (cudaError_t s = sticky_error()) return s;
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  g_cache_config = config;
  return cudaSuccess;
}
extern "C" cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  if (cudaError_t s = sticky_error()) return s;
  if (!config) return fail(cudaErrorInvalidValue, "cudaDeviceGetCacheConfig: pCacheConfig is null");
  const Answer a = gpu_answers().cache_config;
  if (!a.ok) return fail(a.error, "cudaDeviceGetCacheConfig: the GPU answers with an error too");
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  *config = static_cast<cudaFuncCache>(g_cache_config >= 0 ? g_cache_config : a.value);
  return cudaSuccess;
}
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
