// Kernels whose accesses the access counter counts in bytes (test_access_count.cpp).
#include "access_count_cases.h"

#include <immintrin.h>

#include <cstring>

struct Rgb {
  unsigned char r, g, b;
};

__global__ void ac_copy_rgb_kernel(const unsigned char* in, unsigned char* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) reinterpret_cast<Rgb*>(out)[i] = reinterpret_cast<const Rgb*>(in)[i];
}

__global__ void ac_copy_float4_kernel(const float4* in, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void ac_load16_at_kernel(const unsigned char* base, const long long* offsets, float4* out, int count) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < count) memcpy(&out[t], base + offsets[t], sizeof(float4));
}

__global__ void ac_scale_kernel(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = 2.0f * a[i];
}

__global__ void ac_increment_kernel(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

__global__ void ac_touch_kernel(const float* in, float* out, const long long* offsets, int count) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < count) out[t] = in[offsets[t]];
}

cudaError_t ac_copy_rgb(const unsigned char* in, unsigned char* out, int n) {
  ac_copy_rgb_kernel<<<(n + 127) / 128, 128>>>(in, out, n);
  return cudaGetLastError();
}
cudaError_t ac_copy_float4(const float4* in, float4* out, int n) {
  ac_copy_float4_kernel<<<(n + 127) / 128, 128>>>(in, out, n);
  return cudaGetLastError();
}
cudaError_t ac_load16_at(const unsigned char* base, const long long* offsets, float4* out, int count) {
  ac_load16_at_kernel<<<(count + 31) / 32, 32>>>(base, offsets, out, count);
  return cudaGetLastError();
}
cudaError_t ac_scale(const float* a, float* b, int n) {
  ac_scale_kernel<<<(n + 127) / 128, 128>>>(a, b, n);
  return cudaGetLastError();
}
cudaError_t ac_increment(int* p, int n) {
  ac_increment_kernel<<<(n + 127) / 128, 128>>>(p, n);
  return cudaGetLastError();
}
cudaError_t ac_touch(const float* in, float* out, const long long* offsets, int count) {
  ac_touch_kernel<<<(count + 31) / 32, 32>>>(in, out, offsets, count);
  return cudaGetLastError();
}

__global__ void ac_gather_strided_kernel(const float* in, float* out, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(long long)i * stride];
}
cudaError_t ac_gather_strided(const float* in, float* out, int n, int stride) {
  ac_gather_strided_kernel<<<(n + 127) / 128, 128>>>(in, out, n, stride);
  return cudaGetLastError();
}

template <int Pitch>
__global__ void ac_tile_read_kernel(const float* in, float* out, int n, bool by_column) {
  __shared__ float tile[32][Pitch];
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  out[y * n + x] = by_column ? tile[threadIdx.x][threadIdx.y] : tile[threadIdx.y][threadIdx.x];
}
__global__ void ac_tile_read_dynamic_kernel(const float* in, float* out, int n) {
  extern __shared__ float tile[];
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y * 32 + threadIdx.x] = in[y * n + x];
  __syncthreads();
  out[y * n + x] = tile[threadIdx.x * 32 + threadIdx.y];
}
cudaError_t ac_tile_read(const float* in, float* out, int n, bool padded, bool by_column) {
  if (padded) ac_tile_read_kernel<33><<<dim3(n / 32, n / 32), dim3(32, 32)>>>(in, out, n, by_column);
  else ac_tile_read_kernel<32><<<dim3(n / 32, n / 32), dim3(32, 32)>>>(in, out, n, by_column);
  return cudaGetLastError();
}
cudaError_t ac_tile_read_dynamic(const float* in, float* out, int n) {
  ac_tile_read_dynamic_kernel<<<dim3(n / 32, n / 32), dim3(32, 32), 32 * 32 * sizeof(float)>>>(in, out, n);
  return cudaGetLastError();
}

__global__ void ac_column_walk_kernel(const double* __restrict__ in, double* __restrict__ out, int nx, int ny, int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const size_t plane = size_t(nx) * size_t(ny), column = size_t(y) * nx + x;
  if (x == 0 || x == nx - 1) return;
  for (int z = 0; z < nz; ++z) {
    const size_t at = size_t(z) * plane + column;
    out[at] = 0.25 * in[at - 1] + 0.5 * in[at] + 0.25 * in[at + 1];
  }
}

__global__ void ac_vector_stores_kernel(const double* in, double* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __m128d v = _mm_loadu_pd(in + 2 * i);
  double* o = out + 8 * size_t(i);
  _mm_storel_pd(o + 0, v);                                                                       // movlpd
  _mm_storeh_pd(o + 1, _mm_add_pd(v, v));                                                        // movhpd
  _mm_storeu_pd(o + 2, v);                                                                       // movupd
  _mm_storeu_ps(reinterpret_cast<float*>(o + 4), _mm_castpd_ps(v));                              // movups
  _mm_storel_epi64(reinterpret_cast<__m128i*>(o + 6), _mm_castpd_si128(v));                      // movq
  _mm_stream_si64(reinterpret_cast<long long*>(o + 7), _mm_cvtsi128_si64(_mm_castpd_si128(v)));  // movnti
}

cudaError_t ac_walk_then_vector_stores_then_walk(const double* in, double* out, int nx, int ny, int nz) {
  const dim3 block(16, 8), grid((nx + 15) / 16, (ny + 7) / 8);
  ac_column_walk_kernel<<<grid, block>>>(in, out, nx, ny, nz);
  const int n = nx * ny * nz / 8;
  ac_vector_stores_kernel<<<(n + 63) / 64, 64>>>(in, out, n);
  ac_column_walk_kernel<<<grid, block>>>(in, out, nx, ny, nz);
  return cudaGetLastError();
}

__global__ void ac_atomic_add_float_kernel(float* p, int n, int m) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&p[i % m], 1.0f);
}
cudaError_t ac_atomic_add_float(float* p, int n, int m) {
  ac_atomic_add_float_kernel<<<(n + 127) / 128, 128>>>(p, n, m);
  return cudaGetLastError();
}

// One warp; a tile of 4-byte slots, one per lane and one more, filled from `in` (132 bytes), then read.
template <int Read>
__global__ void ac_shared_slot_bytes_kernel(const unsigned char* in, int* out) {
  __shared__ unsigned char tile[33 * 4];
  const int i = threadIdx.x;
  for (int b = i; b < 33 * 4; b += 32) tile[b] = in[b];
  __syncthreads();
  const unsigned char* p = tile + 4 * i;
  if (Read == 0) out[i] = p[1];                    // one channel byte
  if (Read == 1) out[i] = p[0] + p[1] + p[2];      // three channel bytes, one statement
  if (Read == 2) out[i] = p[3] | (p[4] << 8);      // the last byte of its slot and the first of the next
}
cudaError_t ac_shared_slot_bytes(const unsigned char* in, int* out, int read) {
  if (read == 0) ac_shared_slot_bytes_kernel<0><<<1, 32>>>(in, out);
  else if (read == 1) ac_shared_slot_bytes_kernel<1><<<1, 32>>>(in, out);
  else ac_shared_slot_bytes_kernel<2><<<1, 32>>>(in, out);
  return cudaGetLastError();
}

// One warp; a tile of 64 float4 (or float2), stored lane by lane, then lane i reads element i * stride.
template <typename V>
__global__ void ac_shared_vector_kernel(const V* in, V* out, int stride) {
  __shared__ V tile[64];
  const int i = threadIdx.x;
  tile[i] = in[i];
  tile[i + 32] = in[i + 32];
  __syncthreads();
  out[i] = tile[i * stride];
}
cudaError_t ac_shared_float4(const float4* in, float4* out, int stride) {
  ac_shared_vector_kernel<float4><<<1, 32>>>(in, out, stride);
  return cudaGetLastError();
}
cudaError_t ac_shared_float2(const float2* in, float2* out, int stride) {
  ac_shared_vector_kernel<float2><<<1, 32>>>(in, out, stride);
  return cudaGetLastError();
}

__global__ void ac_shared_float2_even_lanes_kernel(const float2* in, float2* out) {
  __shared__ float2 tile[64];
  const int i = threadIdx.x;
  tile[i] = in[i];
  tile[i + 32] = in[i + 32];
  __syncthreads();
  if (i % 2 == 0) {
    out[i] = tile[i];
    tile[i + 32] = in[i];
  }
}
cudaError_t ac_shared_float2_even_lanes(const float2* in, float2* out) {
  ac_shared_float2_even_lanes_kernel<<<1, 32>>>(in, out);
  return cudaGetLastError();
}

// One block of 8 x 8 x 8 threads and a [10][10][10] tile (lab 04's tile of one thread per output cell: thread
// (x, y, z) computes the cell at tile[z + 1][y + 1][x + 1] from its six neighbours).
template <typename T>
__global__ void ac_tile3d_kernel(const T* in, T* out) {
  __shared__ T tile[10][10][10];
  const int tx = threadIdx.x + 1, ty = threadIdx.y + 1, tz = threadIdx.z + 1;
  const int linear = threadIdx.x + 8 * (threadIdx.y + 8 * threadIdx.z);
  for (int k = linear; k < 1000; k += 512) (&tile[0][0][0])[k] = in[k];
  __syncthreads();
  out[linear] = tile[tz][ty][tx] + T(2) * tile[tz][ty][tx - 1] + T(3) * tile[tz][ty][tx + 1] +
                T(4) * tile[tz][ty - 1][tx] + T(5) * tile[tz][ty + 1][tx] + T(6) * tile[tz - 1][ty][tx] +
                T(7) * tile[tz + 1][ty][tx];
}
cudaError_t ac_tile3d_double(const double* in, double* out) {
  ac_tile3d_kernel<double><<<1, dim3(8, 8, 8)>>>(in, out);
  return cudaGetLastError();
}
cudaError_t ac_tile3d_float(const float* in, float* out) {
  ac_tile3d_kernel<float><<<1, dim3(8, 8, 8)>>>(in, out);
  return cudaGetLastError();
}

// One warp; a tile of 72 doubles; lane i loads tile[first + step * i] and the double after it with one unaligned
// 16-byte load (movupd: what g++ makes of two neighbouring doubles when it merges them), out[2i], out[2i + 1].
template <int First, int Step>
__global__ void ac_shared_double_pairs_kernel(const double* in, double* out) {
  __shared__ double tile[72];
  const int i = threadIdx.x;
  tile[i] = in[i];
  tile[i + 32] = in[i + 32];
  if (i < 8) tile[i + 64] = in[i + 64];
  __syncthreads();
  _mm_storeu_pd(out + 2 * i, _mm_loadu_pd(&tile[First + Step * i]));
}
cudaError_t ac_shared_double_pairs(const double* in, double* out, int step) {
  if (step == 1) ac_shared_double_pairs_kernel<0, 1><<<1, 32>>>(in, out);
  else ac_shared_double_pairs_kernel<1, 2><<<1, 32>>>(in, out);
  return cudaGetLastError();
}

// One block of `threads` threads: every thread stores 0 to a shared slot, only odd lanes load in[t] (a branch on
// threadIdx.x parity), every thread stores out[t] (the loaded value, or the slot's 0).
__global__ void ac_odd_lanes_load_kernel(const float* in, float* out) {
  __shared__ float slot[64];
  const int t = threadIdx.x;
  slot[t] = 0.0f;
  __syncthreads();
  float v = slot[t ^ 1];
  if (t % 2) v = in[t];
  out[t] = v;
}
cudaError_t ac_odd_lanes_load(const float* in, float* out, int threads) {
  ac_odd_lanes_load_kernel<<<1, threads>>>(in, out);
  return cudaGetLastError();
}

__global__ void ac_grid_stride_copy_kernel(const float* in, float* out, int n, bool staged) {
  __shared__ float tile[128];
  for (int base = blockIdx.x * 128; base < n; base += gridDim.x * 128) {
    if (!staged) {
      out[base + threadIdx.x] = in[base + threadIdx.x];
      continue;
    }
    tile[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = tile[threadIdx.x];
    __syncthreads();
  }
}
cudaError_t ac_grid_stride_copy(const float* in, float* out, int n, int blocks, bool staged) {
  ac_grid_stride_copy_kernel<<<blocks, 128>>>(in, out, n, staged);
  return cudaGetLastError();
}
