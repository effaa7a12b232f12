// Static __shared__ arrays in the guarded arena: forms that must keep working (each kernel writes what the
// test expects; see test_shared_arena.cpp).
#include <cstdint>
#include "kernels.h"

// A __shared__ array in a __device__ function: every call in one block sees the same array.
__device__ float bump(int i) {
  __shared__ float acc[64];
  if (i == 0 && threadIdx.x == 0) acc[0] = 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) acc[0] += 1.0f;
  __syncthreads();
  return acc[0];
}

// Two arrays in one kernel, one of them a scalar; the device function twice; an aligned odd-sized array;
// alignas in both spellings; an unwritten element must read as the poison (NaN), not as a value.
__global__ void two_arrays_kernel(float* out, uintptr_t* addr) {
  __shared__ float left[64], right[64];
  __shared__ int count;
  __shared__ __align__(16) float odd[3];
  alignas(16) __shared__ double al[3];
  alignas(float4) __shared__ float al4[5];
  static __shared__ unsigned char bytes[7];
  volatile __shared__ int flag;
  if (threadIdx.x == 0) count = 0;
  left[threadIdx.x] = float(threadIdx.x);
  right[63 - threadIdx.x] = 2.0f * float(threadIdx.x);
  if (threadIdx.x < 3) odd[threadIdx.x] = 1.0f, al[threadIdx.x] = 1.0;
  if (threadIdx.x < 5) al4[threadIdx.x] = 1.0f;
  if (threadIdx.x < 7) bytes[threadIdx.x] = 1;
  if (threadIdx.x == 0) flag = 5;
  __syncthreads();
  atomicAdd(&count, 1);
  __syncthreads();
  const float first = bump(0), second = bump(1);
  out[blockIdx.x * 64 + threadIdx.x] = left[threadIdx.x] + right[threadIdx.x] + float(count) + first + second +
                                       float(flag) + odd[threadIdx.x % 3] + float(al[0]) + al4[4] + bytes[6];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    addr[0] = reinterpret_cast<uintptr_t>(&odd[0]);
    addr[1] = reinterpret_cast<uintptr_t>(&al[0]);
    addr[2] = reinterpret_cast<uintptr_t>(&al4[0]);
    addr[3] = reinterpret_cast<uintptr_t>(&left[0]);
    addr[4] = sizeof(left) + sizeof(right) + sizeof(count) + sizeof(odd) + sizeof(al) + sizeof(al4) + sizeof(bytes) +
              sizeof(flag);
  }
}

// A second kernel with an array of the same name: its own slot.
__global__ void other_kernel(float* out) {
  __shared__ float left[32];
  __shared__ float unwritten[4];
  left[31 - threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  // unwritten[] was poisoned with 0xFF bytes when this block reached it: NaN.
  out[threadIdx.x] = left[threadIdx.x] + (unwritten[threadIdx.x % 4] != unwritten[threadIdx.x % 4] ? 100.0f : 0.0f);
}

// A template kernel: one slot per instantiation (different sizes).
template <int N>
__global__ void reverse_kernel(float* out) {
  __shared__ float buf[N];
  buf[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = buf[N - 1 - threadIdx.x];
}

// Lambdas use a __shared__ array without capturing it (it has static storage, as on a GPU): [] compiles, and
// [=] writes the block's array, not a copy.
__global__ void lambda_kernel(float* out) {
  __shared__ float buf[32];
  auto put = [](int i, float v) { buf[i] = v; };
  auto get = [=](int i) { return buf[i]; };
  put(threadIdx.x, 3.0f * float(threadIdx.x));
  __syncthreads();
  out[threadIdx.x] = get(31 - threadIdx.x);
}

cudaError_t shared_lambdas(float* out) {
  lambda_kernel<<<2, 32>>>(out);
  return cudaGetLastError();
}
cudaError_t shared_two_arrays(float* out, uintptr_t* addr, int blocks) {
  two_arrays_kernel<<<blocks, 64>>>(out, addr);
  return cudaGetLastError();
}
cudaError_t shared_other_kernel(float* out) {
  other_kernel<<<1, 32>>>(out);
  return cudaGetLastError();
}
cudaError_t shared_reverse(float* out, int n) {
  if (n == 16) reverse_kernel<16><<<1, 16>>>(out);
  else reverse_kernel<48><<<1, 48>>>(out);
  return cudaGetLastError();
}
