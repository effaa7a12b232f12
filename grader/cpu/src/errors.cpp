// Error state of CPU execution mode: the per-host-thread "last error", the process-wide sticky error, and
// the strings behind cudaGetErrorString / cudaGetErrorName.
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include "internal.h"

namespace gpulab::cpu {
namespace {
thread_local cudaError_t t_last_error = cudaSuccess;
std::atomic<int> g_sticky{cudaSuccess};
std::mutex g_detail_mutex;
std::string g_detail;

bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorHardwareStackError:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}
}  // namespace

std::string format(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

cudaError_t fail(cudaError_t e, const std::string& detail) {
  t_last_error = e;
  if (is_sticky(e)) {
    int expected = cudaSuccess;
    g_sticky.compare_exchange_strong(expected, e);
  }
  if (!detail.empty()) {
    std::fprintf(stderr, "gpulab-cpu: %s: %s\n", cudaGetErrorName(e), detail.c_str());
    std::lock_guard<std::mutex> lock(g_detail_mutex);
    g_detail = detail;
  }
  return e;
}

cudaError_t sticky_error() { return static_cast<cudaError_t>(g_sticky.load(std::memory_order_relaxed)); }
void clear_sticky_error() {
  g_sticky = cudaSuccess;
  t_last_error = cudaSuccess;
}

const char* last_error_detail() {
  static thread_local std::string copy;
  std::lock_guard<std::mutex> lock(g_detail_mutex);
  copy = g_detail;
  return copy.c_str();
}

cudaError_t not_supported(const char* what) {
  return fail(cudaErrorNotSupported, format("%s is not supported in CPU execution mode", what));
}
}  // namespace gpulab::cpu

using namespace gpulab::cpu;

extern "C" cudaError_t cudaGetLastError(void) {
  cudaError_t sticky = sticky_error();
  if (sticky != cudaSuccess) return sticky;
  cudaError_t e = t_last_error;
  t_last_error = cudaSuccess;
  return e;
}

extern "C" cudaError_t cudaPeekAtLastError(void) {
  cudaError_t sticky = sticky_error();
  return sticky != cudaSuccess ? sticky : t_last_error;
}

#define GPULAB_ERRORS(X)                                                                      \
  X(cudaSuccess, "no error")                                                                  \
  X(cudaErrorInvalidValue, "invalid argument")                                                \
  X(cudaErrorMemoryAllocation, "out of memory")                                               \
  X(cudaErrorInitializationError, "initialization error")                                     \
  X(cudaErrorCudartUnloading, "driver shutting down")                                         \
  X(cudaErrorInvalidConfiguration, "invalid configuration argument")                          \
  X(cudaErrorInvalidPitchValue, "invalid pitch argument")                                     \
  X(cudaErrorInvalidSymbol, "invalid device symbol")                                          \
  X(cudaErrorInvalidHostPointer, "invalid host pointer")                                      \
  X(cudaErrorInvalidDevicePointer, "invalid device pointer")                                  \
  X(cudaErrorInvalidTexture, "invalid texture reference")                                     \
  X(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy")                     \
  X(cudaErrorInsufficientDriver, "CUDA driver version is insufficient for CUDA runtime version") \
  X(cudaErrorMissingConfiguration, "__global__ function call is not configured")              \
  X(cudaErrorInvalidDeviceFunction, "invalid device function")                                \
  X(cudaErrorNoDevice, "no CUDA-capable device is detected")                                  \
  X(cudaErrorInvalidDevice, "invalid device ordinal")                                         \
  X(cudaErrorInvalidKernelImage, "device kernel image is invalid")                            \
  X(cudaErrorNoKernelImageForDevice, "no kernel image is available for execution on the device") \
  X(cudaErrorInvalidResourceHandle, "invalid resource handle")                                \
  X(cudaErrorIllegalState, "the operation cannot be performed in the present state")          \
  X(cudaErrorSymbolNotFound, "named symbol not found")                                        \
  X(cudaErrorNotReady, "device not ready")                                                    \
  X(cudaErrorIllegalAddress, "an illegal memory access was encountered")                      \
  X(cudaErrorLaunchOutOfResources, "too many resources requested for launch")                 \
  X(cudaErrorLaunchTimeout, "the launch timed out and was terminated")                        \
  X(cudaErrorAssert, "device-side assert triggered")                                          \
  X(cudaErrorHardwareStackError, "hardware stack error")                                      \
  X(cudaErrorIllegalInstruction, "an illegal instruction was encountered")                    \
  X(cudaErrorMisalignedAddress, "misaligned address")                                         \
  X(cudaErrorLaunchFailure, "unspecified launch failure")                                     \
  X(cudaErrorNotPermitted, "operation not permitted")                                         \
  X(cudaErrorNotSupported, "operation not supported")                                         \
  X(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing")    \
  X(cudaErrorUnknown, "unknown error")

extern "C" const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
#define X(code, text) \
  case code:          \
    return text;
    GPULAB_ERRORS(X)
#undef X
  }
  return "unrecognized error code";
}

extern "C" const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
#define X(code, text) \
  case code:          \
    return #code;
    GPULAB_ERRORS(X)
#undef X
  }
  return "cudaErrorUnknown";
}
