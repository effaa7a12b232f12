// Device math of CPU execution mode: CUDA's float intrinsics and helpers mapped onto <cmath>.
// Fast-math intrinsics (__expf, __fdividef...) are computed exactly here; results are at least as accurate
// as on a GPU, which is what a correctness grader with tolerances needs.
#pragma once
#include <cmath>
#include <math.h>
#include <cstring>
#include <cstdint>
#include <type_traits>

inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / std::cbrt(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline float __powf(float a, float b) { return std::pow(a, b); }
inline void __sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }  // NaN -> 0 as in CUDA
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return std::sqrt(a); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline float norm3df(float a, float b, float c) { return std::sqrt(a * a + b * b + c * c); }
inline float rnorm3df(float a, float b, float c) { return 1.0f / std::sqrt(a * a + b * b + c * c); }
inline float normf(int n, const float* a) { float s = 0; for (int i = 0; i < n; ++i) s += a[i] * a[i]; return std::sqrt(s); }

inline int __float2int_rn(float x) { return (int)std::nearbyint(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline int __float2int_rd(float x) { return (int)std::floor(x); }
inline int __float2int_ru(float x) { return (int)std::ceil(x); }
inline unsigned __float2uint_rn(float x) { return (unsigned)std::nearbyint(x); }
inline unsigned __float2uint_rz(float x) { return (unsigned)x; }
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned x) { return (float)x; }
inline int __double2int_rn(double x) { return (int)std::nearbyint(x); }
inline float __double2float_rn(double x) { return (float)x; }
inline int __float_as_int(float x) { int i; std::memcpy(&i, &x, 4); return i; }
inline unsigned __float_as_uint(float x) { unsigned i; std::memcpy(&i, &x, 4); return i; }
inline float __int_as_float(int i) { float x; std::memcpy(&x, &i, 4); return x; }
inline float __uint_as_float(unsigned i) { float x; std::memcpy(&x, &i, 4); return x; }
inline long long __double_as_longlong(double x) { long long i; std::memcpy(&i, &x, 8); return i; }
inline double __longlong_as_double(long long i) { double x; std::memcpy(&x, &i, 8); return x; }

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline int __mul24(int a, int b) { return a * b; }
inline unsigned __umul24(unsigned a, unsigned b) { return a * b; }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline unsigned __sad(int a, int b, unsigned c) { return c + (unsigned)(a > b ? a - b : b - a); }

// CUDA's global min/max: same-type overloads (preferred over std::min when `using namespace std`), and a
// mixed-type fallback that uses the usual arithmetic conversions.
#define GPULAB_MINMAX(T)                                  \
  inline T min(T a, T b) { return a < b ? a : b; }        \
  inline T max(T a, T b) { return a > b ? a : b; }
GPULAB_MINMAX(int)
GPULAB_MINMAX(unsigned int)
GPULAB_MINMAX(long)
GPULAB_MINMAX(unsigned long)
GPULAB_MINMAX(long long)
GPULAB_MINMAX(unsigned long long)
#undef GPULAB_MINMAX
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
template <class A, class B, class = std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B> &&
                                                     !std::is_same_v<A, B>>>
inline std::common_type_t<A, B> min(A a, B b) {
  return min(std::common_type_t<A, B>(a), std::common_type_t<A, B>(b));
}
template <class A, class B, class = std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B> &&
                                                     !std::is_same_v<A, B>>>
inline std::common_type_t<A, B> max(A a, B b) {
  return max(std::common_type_t<A, B>(a), std::common_type_t<A, B>(b));
}
