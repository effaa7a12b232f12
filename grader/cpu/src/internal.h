// Internal interfaces between the parts of libgpulab_cpu_runtime (not installed, not for student code).
#pragma once
#include <cuda_runtime.h>
#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

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
// This machine's memory, which holds the device buffers.
size_t host_memory_bytes();
// What the live device buffers take of a GPU's memory (cudaMemGetInfo's free memory shrinks by it).
size_t device_bytes_in_use();
// Frees every device allocation (cudaDeviceReset).
void free_all_allocations();
// The live cudaMalloc buffer that contains p: its start and size. False if there is none.
bool device_allocation_of(const void* p, char** start, size_t* size);
// Lazily filled buffers (gpulab_cpu/lazy_memory.h). From the SIGSEGV handler, before anything else: true if
// `addr` is in a page of a lazy buffer that no access had touched yet (the page is filled now, and open unless
// a count keeps it closed: the access must be retried), false for every other address (or a filled page that
// a count keeps closed: count_fault's). Async-signal-safe.
bool lazy_fault(const void* addr);
// Makes the device pages [lo, hi) (page-aligned, inside one buffer's data pages) readable and writable,
// except those of a lazy buffer that were never touched (they stay PROT_NONE until their first access).
void open_device_pages(uintptr_t lo, uintptr_t hi);

// ---- fault.cpp: turning SIGSEGV/SIGBUS inside a kernel into a CUDA error ----
// Installs the process-wide handler (once) and an alternate signal stack for the calling thread.
void prepare_thread_for_kernels();

// ---- read_count.cpp: counting reads of one device buffer (gpulab_cpu/read_count.h) ----
// From the SIGSEGV handler: true if the fault was an access to the counted buffer (handled: counted, page
// opened, trap flag set); false for every other fault.
bool count_fault(siginfo_t* info, void* uctx);
bool counting_reads();
// While one lives, the counted buffer's pages are open (runtime copies and checks that touch device memory).
class CountPause {
 public:
  CountPause();
  ~CountPause();
  CountPause(const CountPause&) = delete;
  CountPause& operator=(const CountPause&) = delete;

 private:
  bool paused_ = false;
};
// A runtime copy read n bytes from src: counts the part inside the counted range.
void count_host_copy(const void* src, size_t n);
// A mapping is about to be unmapped (cudaFree, cudaDeviceReset): a count on it stops.
void count_buffer_released(const void* map_base, size_t map_len);
// Whether a count is running (not paused) and keeps the page at `page` PROT_NONE. Async-signal-safe.
bool count_protects(uintptr_t page);
// memory.cpp, where mprotect cannot open a page (vm.max_map_count reached): a count running stops, its pages
// opened, and says why (AccessCount::why). From the SIGSEGV handler.
void stop_count_at_mapping_limit();
// executor.cpp, as a launch starts (on the launching thread): while a count runs, records the launch and, when
// the count samples blocks and the grid has more blocks than the sample, fills `sample` with the blocks to run
// (ascending linear indices; left empty: all of them). True where the launch is to run no block at all: a sampled
// count's launch it does not count (read_count.cpp).
bool count_launch_begins(const LaunchSite& site, dim3 grid, dim3 block, std::vector<unsigned long long>& sample);
// work_on(), before each block: the counts that follow are this block's.
// False where the block is not to run (a sampled count that stopped early).
bool count_block_begins(unsigned long long linear);
// After the launch's last block.
void count_launch_ends();
// scheduler.cpp, as every thread of the running block waits at a barrier or exited: a block that spent its shared
// budget stops counting shared memory here, its warps' requests whole; and whether a sampled count ends the block
// here (BlockSample::block_accesses). The block's output is then incomplete: only a count whose blocks' output
// nobody reads samples inside a block.
bool count_phase_ends();

// ---- executor.cpp ----
int worker_count();
// While on, every launch runs its blocks on the launching thread alone (read counting).
void set_single_worker(bool on);
// Kernel launches so far (those that passed validation and ran).
unsigned long long launch_count();
// ---- kernel_answers.cpp: what the runtime knows of a kernel (cudaFuncSetAttribute, the launches it ran) ----
// The dynamic shared memory a launch of `kernel` may ask for: cudaFuncSetAttribute's, else the GPU's default.
size_t max_dynamic_shared_for(const void* kernel);
// The most dynamic shared memory any kernel may be allowed (the GPU's opt-in limit per block).
size_t max_dynamic_shared();
// After a launch of `kernel` ran: the static __shared__ bytes one of its blocks reached.
void kernel_ran(const void* kernel, size_t static_shared);
// Fills every file-scope __shared__ variable of the calling worker with 0xFF (start of each block).
void poison_file_scope_shared();
}  // namespace gpulab::cpu
