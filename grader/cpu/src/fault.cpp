// This file leaves a CUDA thread's fiber stack with siglongjmp. glibc's fortified variant
// (__longjmp_chk, which Ubuntu's g++ turns on by default) aborts a jump that lands on another stack
// below the current one, which is where the scheduler's frame may well be: use the plain one.
// (Must precede every #include: <features.h> reads it once.)
#undef _FORTIFY_SOURCE
// Memory faults inside kernels. A SIGSEGV/SIGBUS raised while a worker runs a block (a write past the end
// of a device buffer hits its guard page) is handled on an alternate signal stack: the handler records the
// address and jumps back to the block scheduler, which abandons the faulting CUDA thread and fails the
// launch with cudaErrorIllegalAddress. Faults anywhere else get the previous disposition (a normal crash).
// Two kinds of fault are not errors and come first: the first access to a page of a lazy buffer (memory.cpp
// fills it), and an access to a range whose accesses are being counted (read_count.cpp).
#include <sys/mman.h>
#include <csignal>
#include <cstring>
#include <mutex>
#include <ucontext.h>
#include "worker.h"

namespace gpulab::cpu {
namespace {
struct sigaction g_old_segv, g_old_bus;
__thread void* t_altstack = nullptr;
constexpr size_t kAltStackSize = 64 << 10;

void on_fault(int sig, siginfo_t* info, void* uctx) {
  if (sig == SIGSEGV && lazy_fault(info->si_addr)) return;  // the first access to a page of a lazy buffer
  if (sig == SIGSEGV && count_fault(info, uctx)) return;  // an access to a buffer whose reads are counted
  Worker* w = this_worker_if_any();
  if (w && w->in_block) {
    w->fault_addr = info->si_addr;
    w->fault_signal = sig;
#if defined(__x86_64__)
    // Bit 1 of the page-fault error code: the access was a write.
    w->fault_write = (static_cast<ucontext_t*>(uctx)->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;
#else
    (void)uctx;
    w->fault_write = -1;
#endif
    siglongjmp(w->jmp, 1);
  }
  // Not a kernel: restore what was there before; returning re-executes the access, which faults again.
  sigaction(sig, sig == SIGSEGV ? &g_old_segv : &g_old_bus, nullptr);
}

void install_handler() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  // SA_NODEFER: we leave the handler with siglongjmp without restoring the signal mask (cheap sigsetjmp),
  // so the signal must not be blocked while the handler runs.
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &g_old_segv);
  sigaction(SIGBUS, &sa, &g_old_bus);
}
}  // namespace

void prepare_thread_for_kernels() {
  static std::once_flag once;
  std::call_once(once, install_handler);
  if (!t_altstack) {
    void* m = mmap(nullptr, kAltStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return;
    stack_t ss;
    ss.ss_sp = m;
    ss.ss_size = kAltStackSize;
    ss.ss_flags = 0;
    sigaltstack(&ss, nullptr);
    t_altstack = m;
  }
}
}  // namespace gpulab::cpu
