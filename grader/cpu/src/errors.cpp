// Error state of CPU execution mode: the per-host-thread "last error", the process-wide sticky error, and
// the strings behind cudaGetErrorString / cudaGetErrorName.
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include "gpu_answers.h"
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

// The CUDA runtime's own words for every code (recorded with the GPU's answers: gpu_answers.h), so that a message a
// program prints reads the same in both modes. The recording's, never a live GPU's: the words are the runtime's.
extern "C" const char* cudaGetErrorString(cudaError_t error) {
  const ErrorWords* words = recorded_answers().words_of(error);
  return words ? words->text : "unrecognized error code";
}

extern "C" const char* cudaGetErrorName(cudaError_t error) {
  const ErrorWords* words = recorded_answers().words_of(error);
  return words ? words->name : "unrecognized error code";
}
