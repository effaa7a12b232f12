// Internal interfaces between the parts of libgpulab_cpu_runtime (not installed, not for student code).
#pragma once
#include <cuda_runtime.h>
#include <string>

namespace gpulab::cpu {
// ---- errors.cpp: CUDA-like error state ----
// Records `e` as the calling thread's last error (cudaGetLastError) and prints `detail` to stderr.
// Errors that corrupt a real CUDA context (illegal address, launch failure, assert...) become sticky:
// every later runtime call returns them until cudaDeviceReset.
cudaError_t fail(cudaError_t e, const std::string& detail);
// The sticky error, or cudaSuccess; API entry points return it before doing anything.
cudaError_t sticky_error();
void clear_sticky_error();
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// ---- memory.cpp: guarded device allocations ----
struct FaultSite {
  bool found = false;
  bool past_end = false;      // false: before the start
  size_t distance = 0;        // bytes past the end / before the start
  size_t buffer_size = 0;
};
// Which device buffer's guard area holds `addr` (called after a fault, outside the signal handler).
FaultSite classify_fault_address(const void* addr);
// Checks the canary bytes in front of every live buffer; returns a description of the first one written.
std::string check_underflow_canaries();
// Frees every device allocation (cudaDeviceReset).
void free_all_allocations();

// ---- fault.cpp: turning SIGSEGV/SIGBUS inside a kernel into a CUDA error ----
// Installs the process-wide handler (once) and an alternate signal stack for the calling thread.
void prepare_thread_for_kernels();

// ---- executor.cpp ----
int worker_count();
size_t max_dynamic_shared_for(const void* kernel);
// Fills every file-scope __shared__ variable of the calling worker with 0xFF (start of each block).
void poison_file_scope_shared();
}  // namespace gpulab::cpu
