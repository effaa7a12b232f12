// The state of one OS worker thread that executes CUDA blocks, and of the launch it is working on.
// A worker runs one block at a time: each CUDA thread of the block is a Boost.Context fiber with a stack
// from the worker's pool, and the worker's own stack runs the block scheduler (scheduler.cpp).
#pragma once
#include <csetjmp>
#include <csignal>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>
#include <boost/context/fiber.hpp>
#include "internal.h"
#include "shared_arena.h"

namespace gpulab::cpu {
namespace ctx = boost::context;

// Fiber stacks: mmap'ed once with a PROT_NONE guard page below, then reused for the life of the worker
// (a block of 1024 threads needs 1024 live stacks; thousands of blocks reuse the same ones).
class StackPool {
 public:
  explicit StackPool(size_t size);
  ~StackPool();
  ctx::stack_context allocate();
  void deallocate(ctx::stack_context& sc) noexcept { free_.push_back(static_cast<char*>(sc.sp)); }
  // Whether `addr` is in the guard page of one of this pool's stacks (a CUDA thread's stack overflowed).
  bool is_guard(const void* addr) const;
  size_t size() const { return size_; }

 private:
  size_t size_;
  std::vector<char*> free_;   // stack tops ready for reuse
  std::vector<char*> bases_;  // every mapping (guard page first)
};

// The StackAllocator concept Boost.Context expects, forwarding to the worker's pool.
struct PooledStack {
  StackPool* pool;
  ctx::stack_context allocate() { return pool->allocate(); }
  void deallocate(ctx::stack_context& sc) noexcept { pool->deallocate(sc); }
};

// One CUDA thread of the current block.
struct Slot {
  enum State : unsigned char { Runnable, AtBarrier, Done, Failed };
  ctx::fiber fiber;                // suspended fiber; empty while it runs and once it finished
  ctx::fiber* sched = nullptr;     // inside the fiber: the continuation back to the scheduler
  uint3 tid{};
  State state = Runnable;
  const char* bar_file = nullptr;  // call site of the __syncthreads() it waits at
  int bar_line = 0;
  int pred = 0;                    // predicate of __syncthreads_count/and/or
  int result = 0;
  unsigned live = 0;               // threads that took part in the last barrier (exited ones excluded)
};

struct LaunchJob {
  LaunchSite site;
  const void* kernel;
  dim3 grid, block;
  size_t shmem;
  KernelThunk thunk;
  const void* payload;
  unsigned nthreads;
  unsigned long long nblocks;
  const unsigned long long* sample = nullptr;  // the blocks to run, nblocks of them (read counts); null: all
  unsigned long long seed;
  std::atomic<unsigned long long> next{0};
  std::atomic<bool> abort{false};
  std::atomic<size_t> static_shared{0};  // the most static __shared__ bytes one block reached
  std::mutex mutex;
  cudaError_t err = cudaSuccess;
  std::string msg;

  void record(cudaError_t e, const std::string& m) {
    std::lock_guard<std::mutex> lock(mutex);
    if (err == cudaSuccess) {
      err = e;
      msg = m;
    }
    abort = true;
  }
};

struct Worker {
  Worker();
  ~Worker();
  StackPool stacks;
  std::vector<Slot> slots;
  std::vector<unsigned> order;
  // Dynamic shared memory: the block's buffer ends flush against a guard page, like device buffers.
  unsigned char* dyn_map = nullptr;
  size_t dyn_map_len = 0;
  unsigned char* dyn_end = nullptr;
  unsigned long long epoch = 0;
  unsigned long long block_linear = 0;
  unsigned long long shared_epoch = 0;  // the block whose static __shared__ arrays shared_bytes adds up
  size_t shared_bytes = 0;
  LaunchJob* job = nullptr;
  // Escape hatch from a CUDA thread back to run_block(): faults (signal handler), device asserts, traps.
  sigjmp_buf jmp;
  volatile sig_atomic_t in_block = 0;
  void* volatile fault_addr = nullptr;
  volatile int fault_write = -1;   // 1 write, 0 read, -1 unknown
  volatile int fault_signal = 0;
  cudaError_t pending_error = cudaSuccess;  // set by an abort from inside a CUDA thread
  std::string pending_msg;
  // Static __shared__ declarations of the functions this worker ran (shared_arena.cpp).
  SharedArena shared{*this};
};

// The calling thread's worker (created on first use).
Worker& this_worker();
// Same, or null; async-signal-safe.
Worker* this_worker_if_any();
// Leaves the running CUDA thread for good and makes its block fail with `e` (never returns).
[[noreturn]] void abort_cuda_thread(cudaError_t e, const std::string& msg);

// scheduler.cpp: runs block `linear` of `job` on this worker; false if the launch must fail.
bool run_block(Worker& w, LaunchJob& job, unsigned long long linear);
// "kernel K (launched at f:l), block (x,y,z) thread (x,y,z)" for the CUDA thread running now.
std::string describe_current_thread(const LaunchJob& job);
}  // namespace gpulab::cpu
