// This file leaves a CUDA thread's fiber stack with siglongjmp. glibc's fortified variant
// (__longjmp_chk, which Ubuntu's g++ turns on by default) aborts a jump that lands on another stack
// below the current one, which is where the scheduler's frame may well be: use the plain one.
// (Must precede every #include: <features.h> reads it once.)
#undef _FORTIFY_SOURCE
// The per-block scheduler. All CUDA threads of a block run cooperatively on one OS thread; each runs until
// it reaches a barrier or exits, in a seeded pseudo-random order that changes with every barrier phase.
// A thread therefore reads shared memory before most of its neighbours wrote it unless a __syncthreads()
// separates them, so a missing barrier shows up as wrong results on every run, deterministically for a
// given GPULAB_CPU_SEED. A barrier releases when every thread of the block that has not exited waits at
// the same one: since compute capability 7.0 a GPU's barrier counts exited threads as arrived, so a tiled
// kernel whose out-of-range threads return before __syncthreads() is correct. Threads waiting at different
// __syncthreads() calls are a divergent barrier and fail the launch instead of hanging.
#include <sys/mman.h>
#include <unistd.h>
#include <cstring>
#include <exception>
#include "worker.h"

// Defined here so that the runtime library owns the TLS block (initial-exec access from student code).
__thread gpulab::cpu::ThreadContext gpulab_cpu_tls __attribute__((tls_model("initial-exec")));

namespace gpulab::cpu {
namespace {
const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));

unsigned long long splitmix64(unsigned long long& x) {
  unsigned long long z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Seeded permutation of 0..n-1 for one barrier phase of one block.
void make_order(std::vector<unsigned>& order, unsigned n, unsigned long long seed, unsigned long long block,
                unsigned phase) {
  order.resize(n);
  for (unsigned i = 0; i < n; ++i) order[i] = i;
  unsigned long long state = seed ^ (block * 0xD1B54A32D192ED03ull) ^ (static_cast<unsigned long long>(phase) << 48);
  for (unsigned i = n; i > 1; --i) {
    unsigned j = static_cast<unsigned>(splitmix64(state) % i);
    std::swap(order[i - 1], order[j]);
  }
}

std::string dim_str(uint3 v) { return format("(%u,%u,%u)", v.x, v.y, v.z); }

std::string block_str(const LaunchJob& job) {
  return format("block %s of kernel %s (launched at %s:%d)", dim_str(gpulab_cpu_tls.block_idx).c_str(),
                job.site.kernel, job.site.file, job.site.line);
}

// The body of every CUDA thread: run the kernel, then hand control back to the scheduler for good.
struct FiberEntry {
  Slot* slot;
  const LaunchJob* job;
  ctx::fiber operator()(ctx::fiber&& sched) {
    slot->sched = &sched;
    try {
      job->thunk(job->payload);
      slot->state = Slot::Done;
    } catch (const ctx::detail::forced_unwind&) {
      throw;  // Boost.Context unwinding a fiber that the scheduler abandoned
    } catch (const std::exception& e) {
      Worker& w = this_worker();
      w.pending_error = cudaErrorLaunchFailure;
      w.pending_msg = format("C++ exception thrown in %s: %s", describe_current_thread(*job).c_str(), e.what());
      slot->state = Slot::Failed;
    } catch (...) {
      Worker& w = this_worker();
      w.pending_error = cudaErrorLaunchFailure;
      w.pending_msg = format("C++ exception thrown in %s", describe_current_thread(*job).c_str());
      slot->state = Slot::Failed;
    }
    return std::move(sched);
  }
};

// Destroys the suspended fibers of an aborted block (Boost.Context unwinds their stacks).
void drop_fibers(Worker& w) {
  gpulab_cpu_tls.slot = nullptr;
  for (Slot& s : w.slots) s.fiber = ctx::fiber();
}

bool same_site(const Slot& a, const Slot& b) {
  return a.bar_line == b.bar_line && (a.bar_file == b.bar_file || std::strcmp(a.bar_file, b.bar_file) == 0);
}

// Runs phases until every thread exited (true) or the block must fail (false, job.record called).
bool schedule(Worker& w, LaunchJob& job) {
  const unsigned n = job.nthreads;
  ThreadContext& tc = gpulab_cpu_tls;
  for (unsigned phase = 0;; ++phase) {
    make_order(w.order, n, job.seed, w.block_linear, phase);
    for (unsigned k = 0; k < n; ++k) {
      Slot& s = w.slots[w.order[k]];
      if (s.state != Slot::Runnable) continue;
      tc.thread_idx = s.tid;
      tc.slot = &s;
      if (!s.fiber) s.fiber = ctx::fiber(std::allocator_arg, PooledStack{&w.stacks}, FiberEntry{&s, &job});
      s.fiber = std::move(s.fiber).resume();
      if (s.state == Slot::Failed) {
        job.record(w.pending_error, w.pending_msg);
        drop_fibers(w);
        return false;
      }
    }
    tc.slot = nullptr;

    const Slot* first = nullptr;
    unsigned waiting = 0, count = 0;
    bool divergent = false;
    const Slot* other = nullptr;
    for (const Slot& s : w.slots) {
      if (s.state != Slot::AtBarrier) continue;
      ++waiting;
      count += s.pred != 0;
      if (!first) first = &s;
      else if (!divergent && !same_site(*first, s)) divergent = true, other = &s;
    }
    if (waiting == 0) return true;
    // Threads that exited count as arrived (cc >= 7.0): the barrier releases the ones waiting, provided
    // they all wait at the same __syncthreads() call.
    if (divergent) {
      job.record(cudaErrorLaunchFailure,
                 format("threads of %s wait at different __syncthreads() calls (%s:%d and %s:%d): a barrier in "
                        "divergent code (some threads skipped the first one and went on to the second)",
                        block_str(job).c_str(), first->bar_file, first->bar_line, other->bar_file, other->bar_line));
      drop_fibers(w);
      return false;
    }
    // Between two phases: a count's shared budget spent in this one ends here, and a sampled count that has seen
    // enough of this block ends the block (count_phase_ends).
    if (count_phase_ends()) {
      drop_fibers(w);
      return true;
    }
    for (Slot& s : w.slots) {
      if (s.state != Slot::AtBarrier) continue;
      s.result = static_cast<int>(count);
      s.live = waiting;
      s.state = Slot::Runnable;
    }
  }
}

// Describes the fault that brought us back to run_block() through the signal handler.
std::string describe_fault(Worker& w, const LaunchJob& job, cudaError_t& code) {
  const void* addr = w.fault_addr;
  std::string who = describe_current_thread(job);
  const char* access = w.fault_write == 1 ? "wrote" : w.fault_write == 0 ? "read" : "accessed";
  code = cudaErrorIllegalAddress;
  if (w.stacks.is_guard(addr)) {
    code = cudaErrorLaunchFailure;
    return format("%s overflowed its %zu KiB CPU-mode stack (large local arrays or deep recursion; raise "
                  "GPULAB_CPU_STACK_KB)",
                  who.c_str(), w.stacks.size() >> 10);
  }
  std::string shared = w.shared.describe_fault(addr, who, access);  // past a static __shared__ array
  if (!shared.empty()) return shared;
  auto a = reinterpret_cast<uintptr_t>(addr), e = reinterpret_cast<uintptr_t>(w.dyn_end);
  if (a >= e && a < e + kPage)
    return format("%s %s %zu bytes past the end of the dynamic shared memory (%zu bytes requested at launch)", who.c_str(),
                  access, static_cast<size_t>(a - e), job.shmem);
  FaultSite site = classify_fault_address(addr);
  if (site.found && site.past_end)
    return format("%s %s past the end of a device buffer (%zu bytes after the end of a %zu-byte buffer)", who.c_str(),
                  access, site.distance, site.buffer_size);
  if (site.found)
    return format("%s %s before the start of a device buffer (%zu bytes before a %zu-byte buffer)", who.c_str(), access,
                  site.distance, site.buffer_size);
  if (a < 65536) return format("%s %s address %p (null pointer)", who.c_str(), access, addr);
  return format("%s %s address %p, which is not in any device buffer", who.c_str(), access, addr);
}
}  // namespace

StackPool::StackPool(size_t size) : size_((size + kPage - 1) / kPage * kPage) {}

StackPool::~StackPool() {
  for (char* b : bases_) munmap(b, size_ + kPage);
}

ctx::stack_context StackPool::allocate() {
  ctx::stack_context sc;
  if (free_.empty()) {
    void* m = mmap(nullptr, size_ + kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    mprotect(m, kPage, PROT_NONE);
    bases_.push_back(static_cast<char*>(m));
    free_.push_back(static_cast<char*>(m) + kPage + size_);
  }
  sc.sp = free_.back();
  sc.size = size_;
  free_.pop_back();
  return sc;
}

bool StackPool::is_guard(const void* addr) const {
  const char* a = static_cast<const char*>(addr);
  for (char* b : bases_)
    if (a >= b && a < b + kPage) return true;
  return false;
}

std::string describe_current_thread(const LaunchJob& job) {
  return format("kernel %s (launched at %s:%d), block %s thread %s", job.site.kernel, job.site.file, job.site.line,
                dim_str(gpulab_cpu_tls.block_idx).c_str(), dim_str(gpulab_cpu_tls.thread_idx).c_str());
}

bool run_block(Worker& w, LaunchJob& job, unsigned long long linear) {
  ThreadContext& tc = gpulab_cpu_tls;
  const dim3 g = job.grid, b = job.block;
  tc.block_idx = uint3{static_cast<unsigned>(linear % g.x), static_cast<unsigned>((linear / g.x) % g.y),
                       static_cast<unsigned>(linear / (static_cast<unsigned long long>(g.x) * g.y))};
  tc.block_dim = b;
  tc.grid_dim = g;
  tc.dynamic_shared = w.dyn_end - ((job.shmem + 15) / 16 * 16);
  tc.block_epoch = ++w.epoch;
  if (job.shmem) {
    CountPause open_counted_pages;  // shared_memory.h: the runtime's own accesses to shared pages
    std::memset(tc.dynamic_shared, 0xFF, job.shmem);
  }
  w.block_linear = linear;
  w.job = &job;
  w.pending_error = cudaSuccess;
  w.slots.resize(job.nthreads);
  for (unsigned i = 0; i < job.nthreads; ++i) {
    Slot& s = w.slots[i];
    s.tid = uint3{i % b.x, (i / b.x) % b.y, i / (b.x * b.y)};
    s.state = Slot::Runnable;
  }
  poison_file_scope_shared();

  if (sigsetjmp(w.jmp, 0) != 0) {
    // Back from a CUDA thread that faulted, asserted or trapped; its fiber is abandoned (its stack leaks).
    Worker& w2 = this_worker();
    w2.in_block = 0;
    if (w2.pending_error != cudaSuccess) {
      job.record(w2.pending_error, w2.pending_msg);
    } else {
      cudaError_t code;
      std::string msg = describe_fault(w2, job, code);
      job.record(code, msg);
    }
    drop_fibers(w2);
    return false;
  }
  w.in_block = 1;
  bool ok = schedule(w, job);
  w.in_block = 0;
  tc.slot = nullptr;
  std::string padding;
  if (ok && !w.shared.check_padding(job, padding)) {  // a write just before a static __shared__ array
    job.record(cudaErrorIllegalAddress, padding);
    ok = false;
  }
  return ok;
}

void abort_cuda_thread(cudaError_t e, const std::string& msg) {
  Worker* w = this_worker_if_any();
  if (!w || !w->in_block) {
    std::fprintf(stderr, "gpulab-cpu: %s\n", msg.c_str());
    std::abort();
  }
  w->pending_error = e;
  w->pending_msg = msg;
  siglongjmp(w->jmp, 1);
}

namespace {
int barrier(const char* file, int line, int predicate) {
  Slot* s = static_cast<Slot*>(gpulab_cpu_tls.slot);
  if (!s) return predicate;  // host code calling a __device__ helper that syncs: nothing to wait for
  s->state = Slot::AtBarrier;
  s->bar_file = file;
  s->bar_line = line;
  s->pred = predicate;
  *s->sched = std::move(*s->sched).resume();
  return s->result;
}
}  // namespace

void syncthreads(const char* file, int line) { barrier(file, line, 0); }
int syncthreads_count(const char* file, int line, int p) { return barrier(file, line, p != 0); }
int syncthreads_and(const char* file, int line, int p) {
  const int count = barrier(file, line, p != 0);
  Slot* s = static_cast<Slot*>(gpulab_cpu_tls.slot);
  return s ? count == static_cast<int>(s->live) : p != 0;  // every thread still running had p != 0
}
int syncthreads_or(const char* file, int line, int p) { return barrier(file, line, p != 0) > 0; }

void device_trap(const char* what, const char* file, int line) {
  Worker* w = this_worker_if_any();
  std::string who = w && w->job ? describe_current_thread(*w->job) : std::string("host code");
  abort_cuda_thread(cudaErrorLaunchFailure, format("%s called at %s:%d in %s", what, file, line, who.c_str()));
}

unsigned char* dynamic_shared_memory() { return gpulab_cpu_tls.dynamic_shared; }
}  // namespace gpulab::cpu
