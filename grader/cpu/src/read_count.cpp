// Counting reads of one device buffer (see include/gpulab_cpu/read_count.h).
//
// While a count runs, the pages that hold the counted range are PROT_NONE. An access to them faults; the
// SIGSEGV handler (fault.cpp calls count_fault() first) counts it when a CUDA thread read (or wrote) inside
// the range, makes the page accessible, and sets the trap flag so that the faulting instruction runs once
// more and then raises SIGTRAP; the SIGTRAP handler puts the protection back and clears the flag. An
// instruction whose access spans two protected pages faults on the second one with the same instruction
// pointer: that page is opened too and the access is not counted twice. Runtime copies (cudaMemcpy*,
// cudaMemset, the canary check) open the pages for their duration instead (CountPause), so they do not
// single-step through a whole buffer.
#include "gpulab_cpu/read_count.h"

#include <sys/mman.h>
#include <unistd.h>
#include <csignal>
#include <cstring>
#include <mutex>
#include <ucontext.h>
#include "worker.h"

namespace gpulab::cpu {
namespace {
#if defined(__x86_64__) && defined(__linux__)
constexpr bool kSupported = true;
#else
constexpr bool kSupported = false;
#endif

const uintptr_t kPageSize = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));

// The one count in progress. Written by the counting thread; read by the signal handlers, which run on the
// same thread (the grid runs there) or, for a stray access, on another.
struct CountState {
  volatile sig_atomic_t active = 0;
  volatile sig_atomic_t paused = 0;  // a runtime copy has the pages open
  uintptr_t prot_lo = 0, prot_hi = 0;  // protected pages
  uintptr_t lo = 0, hi = 0;            // counted range
  unsigned long long reads = 0, writes = 0;
  // Pages opened for the instruction being single-stepped, and that instruction's address.
  uintptr_t step_pages[4] = {};
  int nstep = 0;
  uintptr_t step_ip = 0;
  bool freed = false;  // the buffer was freed during the count
};
CountState g;
unsigned long long g_host_bytes = 0;  // bytes runtime copies read from the counted range
std::mutex g_count_mutex;  // one count at a time
struct sigaction g_old_trap;

void protect_all() { mprotect(reinterpret_cast<void*>(g.prot_lo), g.prot_hi - g.prot_lo, PROT_NONE); }
void open_all() { mprotect(reinterpret_cast<void*>(g.prot_lo), g.prot_hi - g.prot_lo, PROT_READ | PROT_WRITE); }

void reprotect_step_pages() {
  for (int i = 0; i < g.nstep; ++i)
    if (g.active && !g.paused) mprotect(reinterpret_cast<void*>(g.step_pages[i]), kPageSize, PROT_NONE);
  g.nstep = 0;
}

#if defined(__x86_64__) && defined(__linux__)
constexpr greg_t kTrapFlag = 0x100;

void on_trap(int sig, siginfo_t* info, void* uctx) {
  auto* uc = static_cast<ucontext_t*>(uctx);
  if (g.nstep > 0) {
    reprotect_step_pages();
    uc->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
    return;
  }
  // Not ours (a debugger's breakpoint, or int3): what was there before.
  if (g_old_trap.sa_flags & SA_SIGINFO) {
    if (g_old_trap.sa_sigaction) g_old_trap.sa_sigaction(sig, info, uctx);
    return;
  }
  if (g_old_trap.sa_handler == SIG_IGN) return;
  if (g_old_trap.sa_handler != SIG_DFL && g_old_trap.sa_handler) {
    g_old_trap.sa_handler(sig);
    return;
  }
  signal(SIGTRAP, SIG_DFL);
  raise(SIGTRAP);
}

void install_trap_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trap;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTRAP, &sa, &g_old_trap);
  });
}
#endif
}  // namespace

bool count_fault(siginfo_t* info, void* uctx) {
#if defined(__x86_64__) && defined(__linux__)
  if (!g.active) return false;
  const auto a = reinterpret_cast<uintptr_t>(info->si_addr);
  if (a < g.prot_lo || a >= g.prot_hi) return false;
  auto* uc = static_cast<ucontext_t*>(uctx);
  const auto ip = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  const uintptr_t page = a & ~(kPageSize - 1);
  if (g.nstep > 0 && ip == g.step_ip && g.nstep < 4) {
    // The same instruction again: its access spans another protected page. Open it too; counted already.
    g.step_pages[g.nstep++] = page;
  } else {
    reprotect_step_pages();  // a step that never trapped (its kernel faulted elsewhere and was abandoned)
    Worker* w = this_worker_if_any();
    const bool kernel = w && w->in_block;
    const bool write = uc->uc_mcontext.gregs[REG_ERR] & 2;
    if (kernel && a >= g.lo && a < g.hi) ++(write ? g.writes : g.reads);
    g.step_pages[0] = page;
    g.nstep = 1;
    g.step_ip = ip;
  }
  mprotect(reinterpret_cast<void*>(page), kPageSize, PROT_READ | PROT_WRITE);
  uc->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
  return true;
#else
  (void)info;
  (void)uctx;
  return false;
#endif
}

bool counting_reads() { return g.active; }

CountPause::CountPause() {
  if (!g.active || g.paused) return;
  g.paused = 1;
  open_all();
  paused_ = true;
}

CountPause::~CountPause() {
  if (!paused_) return;
  g.paused = 0;
  if (g.active) protect_all();
}

void count_host_copy(const void* src, size_t n) {
  if (!g.active || n == 0) return;
  const auto s = reinterpret_cast<uintptr_t>(src);
  const uintptr_t lo = s > g.lo ? s : g.lo, hi = s + n < g.hi ? s + n : g.hi;
  if (hi > lo) g_host_bytes += hi - lo;
}

void count_buffer_released(const void* map_base, size_t map_len) {
  if (!g.active) return;
  const auto b = reinterpret_cast<uintptr_t>(map_base);
  if (b < g.prot_hi && g.prot_lo < b + map_len) {
    g.active = 0;  // its pages are gone: nothing left to protect, or to restore
    g.freed = true;
    g.nstep = 0;
  }
}

bool read_counting_supported(std::string* why) {
  if (!kSupported) {
    if (why)
      *why = "counting reads needs x86-64 Linux (it single-steps each access with the trap flag); this "
             "machine is not one";
    return false;
  }
  return true;
}

ReadCount count_device_reads(const void* begin, size_t bytes, const std::function<void()>& work) {
  ReadCount result;
  if (!read_counting_supported(&result.why)) return result;
  std::lock_guard<std::mutex> one_at_a_time(g_count_mutex);
  char* start = nullptr;
  size_t size = 0;
  if (!device_allocation_of(begin, &start, &size)) {
    result.why = format("count_device_reads: %p is not inside a live cudaMalloc buffer", begin);
    return result;
  }
  const size_t offset = static_cast<const char*>(begin) - start;
  if (bytes == 0 || bytes > size - offset) bytes = size - offset;
#if defined(__x86_64__) && defined(__linux__)
  install_trap_handler();
#endif
  prepare_thread_for_kernels();  // the SIGSEGV handler
  g.paused = 0;
  g.reads = g.writes = 0;
  g.nstep = 0;
  g.freed = false;
  g_host_bytes = 0;
  g.lo = reinterpret_cast<uintptr_t>(begin);
  g.hi = g.lo + bytes;
  g.prot_lo = g.lo & ~(kPageSize - 1);
  g.prot_hi = (g.hi + kPageSize - 1) & ~(kPageSize - 1);
  const unsigned long long launches_before = launch_count();
  set_single_worker(true);
  protect_all();
  g.active = 1;
  struct Restore {
    ~Restore() {
      const bool was_active = g.active;
      g.active = 0;
      g.nstep = 0;
      if (was_active) open_all();
      set_single_worker(false);
    }
  };
  {
    Restore restore;
    work();
  }
  result.supported = true;
  result.reads = g.reads;
  result.writes = g.writes;
  result.host_bytes_read = g_host_bytes;
  result.launches = launch_count() - launches_before;
  if (g.freed) result.why = "the buffer was freed while its reads were being counted; the count stops there";
  return result;
}
}  // namespace gpulab::cpu
