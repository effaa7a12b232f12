// Device-side language of CPU execution mode: qualifiers, built-in index variables, barriers, fences.
// Math, atomics and the list of unsupported constructs live in math.h, atomics.h and unsupported.h.
#pragma once
#include <atomic>
#include <type_traits>
#include "types.h"

// What `__CUDA_ARCH__` reads as inside __global__ and __device__ function bodies (gpulab-cu2cpp rewrites it to
// this): nvcc's device pass for sm_90 (H100, H200), the course's GPUs.
#ifndef GPULAB_CPU_CUDA_ARCH
#define GPULAB_CPU_CUDA_ARCH 900
#endif

// ---- qualifiers: kernels and device functions are ordinary C++ functions on the CPU ----
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
// Empty: libstdc++ itself writes __attribute__((__noinline__)), which a function-like expansion would break.
#define __noinline__
#define __forceinline__ inline __attribute__((always_inline))
#define __inline_hint__
#define __launch_bounds__(...)
// A GNU attribute (not alignas) because it may follow the `static thread_local` that the rewriter inserts.
#define __align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __cudart_builtin__
// `__shared__` needs per-block storage and poisoning, which gpulab-cu2cpp writes for every .cu file it
// rewrites. A header the rewriter did not see ends up here: fail and name the construct and the fix.
#define __shared__ \
  __shared___is_only_supported_in_files_rewritten_by_gpulab_cu2cpp_add_this_file_to_gpulab_cpu_add_cuda_sources

namespace gpulab::cpu {
// One static `__shared__` declaration's storage on the current worker (shared_memory.h describes the arena).
struct SharedSlotRef {
  void* ptr;                       // the array, flush against a guard page
  unsigned long long epoch;        // the block that last reached the declaration (poisoned it)
};
// Per-OS-thread execution state, written by the block scheduler before it resumes a CUDA thread (a fiber).
// `__thread` (no dynamic initialisation) plus the initial-exec model make every access one %fs-relative
// load, also from a student library that was dlopen'ed: the runtime library that owns this variable is
// always loaded with the executable.
struct ThreadContext {
  uint3 thread_idx;
  uint3 block_idx;
  uint3 block_dim;
  uint3 grid_dim;
  unsigned char* dynamic_shared;         // this worker's dynamic shared buffer, poisoned per block
  unsigned long long block_epoch;        // increases for every block a worker runs (0: not in a kernel)
  void* slot;                            // the running CUDA thread's scheduler record (null: host code)
  SharedSlotRef* shared_slots;           // this worker's static __shared__ slots, by SharedSite::id
  unsigned shared_slot_count;            // entries in shared_slots (0 until a declaration is first reached)
};
}  // namespace gpulab::cpu
extern __thread gpulab::cpu::ThreadContext gpulab_cpu_tls __attribute__((tls_model("initial-exec")));

#define threadIdx (static_cast<const ::uint3&>(::gpulab_cpu_tls.thread_idx))
#define blockIdx (static_cast<const ::uint3&>(::gpulab_cpu_tls.block_idx))
#define blockDim (::dim3(::gpulab_cpu_tls.block_dim))
#define gridDim (::dim3(::gpulab_cpu_tls.grid_dim))
constexpr int warpSize = 32;

namespace gpulab::cpu {
void syncthreads(const char* file, int line);
int syncthreads_count(const char* file, int line, int predicate);
int syncthreads_and(const char* file, int line, int predicate);
int syncthreads_or(const char* file, int line, int predicate);
[[noreturn]] void device_trap(const char* what, const char* file, int line);
unsigned char* dynamic_shared_memory();
long long clock64();
// `clock()` inside device code (gpulab-cu2cpp rewrites it to this): the GPU's clock_t, the same count as clock64().
inline long device_clock() { return static_cast<long>(clock64()); }

// File-scope `__shared__` variables register a getter; the scheduler poisons them at each block start.
struct SharedRegion { void* ptr; size_t size; };
struct SharedRegistrar { explicit SharedRegistrar(SharedRegion (*getter)()); };

// `extern __shared__ T name[];` at file scope: every use must reach the current worker's buffer.
template <class T>
struct DynamicShared {
  operator T*() const { return reinterpret_cast<T*>(dynamic_shared_memory()); }
  T& operator[](size_t i) const { return reinterpret_cast<T*>(dynamic_shared_memory())[i]; }
};
}  // namespace gpulab::cpu

// Barriers carry their call site so that threads waiting at different __syncthreads() are reported.
#define __syncthreads() ::gpulab::cpu::syncthreads(__FILE__, __LINE__)
#define __syncthreads_count(p) ::gpulab::cpu::syncthreads_count(__FILE__, __LINE__, (p))
#define __syncthreads_and(p) ::gpulab::cpu::syncthreads_and(__FILE__, __LINE__, (p))
#define __syncthreads_or(p) ::gpulab::cpu::syncthreads_or(__FILE__, __LINE__, (p))
#define __trap() ::gpulab::cpu::device_trap("__trap()", __FILE__, __LINE__)
#define __brkpt() ::gpulab::cpu::device_trap("__brkpt()", __FILE__, __LINE__)

// A block's threads share one OS thread and blocks run on several: memory fences must be real ones.
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
inline long long clock64() { return gpulab::cpu::clock64(); }
inline void __nanosleep(unsigned) {}
template <class T>
inline T __ldg(const T* p) { return *p; }
template <class T>
inline T __ldcg(const T* p) { return *p; }
template <class T>
inline T __ldcs(const T* p) { return *p; }
template <class T>
inline void __stcg(T* p, T v) { *p = v; }
template <class T>
inline void __stcs(T* p, T v) { *p = v; }

// ---- static `__shared__` declarations inside functions (gpulab-cu2cpp, src/shared_arena.cpp) ----
// gpulab-cu2cpp turns
//     __shared__ float tile[R][C];
// into (on the same line)
//     typedef float tile_gpulab_shared_t_[R][C];  static_assert(<48 KB>);
//     static ::gpulab::cpu::SharedSite tile_gpulab_site_{GPULAB_SHARED_SITE(tile_gpulab_shared_t_, tile)};
//     (void)::gpulab::cpu::shared_slot(tile_gpulab_site_);
//     static thread_local tile_gpulab_shared_t_& tile = *(tile_gpulab_shared_t_*)::gpulab::cpu::shared_slot(...);
// The site is a constant-initialised static (no guard, one per declaration and template instantiation);
// `tile` has static storage as on a GPU (a lambda uses it without capturing it) and is bound once per worker
// (an OS thread). shared_slot() finds this worker's storage for it: a slot of the worker's shared arena whose
// last byte touches a PROT_NONE guard page, so an access one element past the end faults and is reported as an
// out-of-bounds access of `tile` (with the kernel, block, thread and declaration), never landing in the
// emulator's own state. The first CUDA thread of a block that reaches the declaration fills it with 0xFF
// bytes (NaN for floats, -1 for ints), so a value read before any thread of this block wrote it never looks
// right. Reaching the declaration again in the same block costs a few loads and a compare.
namespace gpulab::cpu {
// "... [with T = float [10][34]]": the type's name without RTTI (the grader's call check reads what student
// libraries import; a string literal imports nothing). T is deduced, not named: an explicit template argument
// that carries __align__ would draw -Wignored-attributes in the student's build.
template <class T>
constexpr const char* shared_type_name(const volatile T*) { return __PRETTY_FUNCTION__; }
template <class T>
constexpr size_t shared_element_size(const volatile T*) { return sizeof(std::remove_all_extents_t<T>); }
template <class T>
constexpr size_t align_of() { return alignof(T); }  // alignas(type) in a __shared__ declaration
template <size_t N>
constexpr size_t align_of() { return N; }           // alignas(expression)

struct SharedSite {
  const char* name;
  const char* file;
  int line;
  size_t size;                    // sizeof the variable
  size_t align;                   // its alignment (type, __align__, alignas)
  size_t element_size;            // sizeof one element (the whole variable if it is not an array)
  const char* type_name;          // shared_type_name(its type), for messages
  std::atomic<unsigned> id{0};    // process-wide index, assigned when first reached (0: not yet)
};
#define GPULAB_SHARED_SITE(T, name)                                                                     \
  #name, __FILE__, __LINE__, sizeof(T), alignof(T), ::gpulab::cpu::shared_element_size((T*)nullptr),       \
      ::gpulab::cpu::shared_type_name((T*)nullptr)

// Out of line: assigns the site's id, lays out its slot on this worker, poisons it for this block.
void* enter_shared_slot(SharedSite& site);

inline void* shared_slot(SharedSite& site) {
  const unsigned id = site.id.load(std::memory_order_acquire);
  ThreadContext& tc = gpulab_cpu_tls;
  if (id < tc.shared_slot_count) {
    SharedSlotRef& s = tc.shared_slots[id];
    if (s.epoch == tc.block_epoch) return s.ptr;
  }
  return enter_shared_slot(site);
}
}  // namespace gpulab::cpu
