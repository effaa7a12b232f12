// Atomics of CPU execution mode. Threads of one block share an OS thread, but blocks run on several OS
// threads, so these must be real atomic read-modify-writes (GCC __atomic builtins on device memory).
#pragma once
#include <cstdint>

namespace gpulab::cpu {
// Compare-and-swap loop for operations without a native builtin (float add, min/max); returns the old value.
template <class T, class F>
inline T atomic_update(T* addr, F f) {
  T old;
  __atomic_load(addr, &old, __ATOMIC_RELAXED);
  T desired = f(old);
  while (!__atomic_compare_exchange(addr, &old, &desired, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
    desired = f(old);
  return old;
}
}  // namespace gpulab::cpu

#define GPULAB_ATOMIC_INT(T)                                                                            \
  inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }                  \
  inline T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }                  \
  inline T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }                \
  inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }                  \
  inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }                    \
  inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }                  \
  inline T atomicMin(T* a, T v) { return gpulab::cpu::atomic_update(a, [v](T o) { return v < o ? v : o; }); } \
  inline T atomicMax(T* a, T v) { return gpulab::cpu::atomic_update(a, [v](T o) { return v > o ? v : o; }); } \
  inline T atomicCAS(T* a, T compare, T v) {                                                            \
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);             \
    return compare;                                                                                     \
  }
GPULAB_ATOMIC_INT(int)
GPULAB_ATOMIC_INT(unsigned int)
GPULAB_ATOMIC_INT(unsigned long long)
GPULAB_ATOMIC_INT(long long)
#undef GPULAB_ATOMIC_INT
inline unsigned short atomicCAS(unsigned short* a, unsigned short compare, unsigned short v) {
  __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return compare;
}
inline float atomicAdd(float* a, float v) { return gpulab::cpu::atomic_update(a, [v](float o) { return o + v; }); }
inline double atomicAdd(double* a, double v) { return gpulab::cpu::atomic_update(a, [v](double o) { return o + v; }); }
inline float atomicExch(float* a, float v) {
  float old;
  __atomic_exchange(a, &v, &old, __ATOMIC_SEQ_CST);
  return old;
}
inline unsigned atomicInc(unsigned* a, unsigned limit) {
  return gpulab::cpu::atomic_update(a, [limit](unsigned o) { return o >= limit ? 0u : o + 1u; });
}
inline unsigned atomicDec(unsigned* a, unsigned limit) {
  return gpulab::cpu::atomic_update(a, [limit](unsigned o) { return (o == 0u || o > limit) ? limit : o - 1u; });
}
// Scoped variants (_block, _system) behave like the device-wide ones.
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicMax_block atomicMax
#define atomicMin_block atomicMin
#define atomicCAS_block atomicCAS
#define atomicExch_block atomicExch
