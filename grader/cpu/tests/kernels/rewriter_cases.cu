// Launch and __shared__ forms the rewriter must handle (each result adds up to 12 per element).
// comment with k<<<1,1>>>(x) and __shared__ float nope[3];
#include <cuda_runtime.h>
#include "kernels.h"
#define LAUNCH(k, n, p) k<<<1, n>>>(p)
const char* s = "__shared__ <<< >>>";
extern __shared__ __align__(16) unsigned char file_smem[];
namespace outer { namespace inner {
template <class T, int N>
__global__ void k(T* p) {
  __shared__ __align__(16) float a[N], b[2 * N];
  volatile __shared__ int flag;
  static __shared__ double d;
  extern __shared__ __align__(16) unsigned char smem[];
  T* typed = reinterpret_cast<T*>(smem);
  a[threadIdx.x] = 1; b[threadIdx.x] = 2; flag = 1; d = 3;
  typed[threadIdx.x] = (T)(a[threadIdx.x] + b[threadIdx.x]) + (T)((unsigned char*)file_smem != smem);
  __syncthreads();
  p[threadIdx.x] = typed[N - 1 - threadIdx.x] + (T)flag + (T)d + (T)__syncthreads_or(threadIdx.x == 3) + (T)__syncthreads_and(1);
}
}}
struct Ops { void (*fn)(float*); };
__global__ void plain(float* p) { p[threadIdx.x] += 1.0f; }
cudaError_t rewriter_cases(float* p) {
  outer::inner::k<float, 32><<<dim3(1), dim3(32), 32 * sizeof(float), 0>>>(p);
  ::outer::inner::k<float, 32><<<1, 32, 32 * sizeof(float)>>>(p);
  Ops ops{plain};
  ops.fn<<<1, 32>>>(p);
  (plain)<<<1, 32>>>(p);
  LAUNCH(plain, 32, p);
  return cudaGetLastError();
}
