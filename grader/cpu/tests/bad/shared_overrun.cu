// PLANTED BUGS: accesses just outside static __shared__ arrays. Each must be reported as an out-of-bounds
// access of that array (name, declaration line, kernel, block, thread) and never corrupt CPU mode's state.
#include "kernels.h"

// Lab 02's corner-halo bug: a 2D tile [8 + 2][32 + 2] whose far corner is fetched one column too far, so the
// corner thread of a full block writes one float past the end of the tile.
__global__ void corner_halo_kernel(const float* in, float* out, int n) {
  __shared__ float tile[8 + 2][32 + 2];
  const int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  tile[ty][tx] = in[threadIdx.y * 32 + threadIdx.x];
  if (threadIdx.x == 31 && threadIdx.y == 7) tile[ty + 1][tx + 2] = 0.0f;  // meant tile[ty + 1][tx + 1]
  __syncthreads();
  if (int(threadIdx.y * 32 + threadIdx.x) < n) out[threadIdx.y * 32 + threadIdx.x] = tile[ty][tx];
}

// Reads its right neighbour, and the last thread reads one past the end.
__global__ void read_past_kernel(float* out) {
  __shared__ float a[64];
  a[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = a[threadIdx.x + 1];
}

// Writes its left neighbour's cell: thread 0 writes a[-1], inside the page that holds the array's start.
__global__ void write_before_kernel(float* out) {
  __shared__ float a[64];
  a[threadIdx.x] = 1.0f;
  __syncthreads();
  a[int(threadIdx.x) - 1] = 2.0f;
  __syncthreads();
  out[threadIdx.x] = a[threadIdx.x];
}

// Two arrays: the overrun of the first (one element past its end) must name the first, not the second.
__global__ void first_of_two_kernel(float* out) {
  __shared__ int counts[32];
  __shared__ float values[32];
  counts[threadIdx.x] = 1;
  values[threadIdx.x] = 2.0f;
  counts[threadIdx.x + 1] = 3;  // thread 31 writes counts[32]
  __syncthreads();
  out[threadIdx.x] = values[threadIdx.x] + float(counts[threadIdx.x]);
}

cudaError_t shared_corner_halo(const float* in, float* out, int n) {
  corner_halo_kernel<<<dim3(3, 2), dim3(32, 8)>>>(in, out, n);
  return cudaGetLastError();
}
cudaError_t shared_read_past_end(float* out) {
  read_past_kernel<<<4, 64>>>(out);
  return cudaGetLastError();
}
cudaError_t shared_write_before_start(float* out) {
  write_before_kernel<<<4, 64>>>(out);
  return cudaGetLastError();
}
cudaError_t shared_first_of_two(float* out) {
  first_of_two_kernel<<<2, 32>>>(out);
  return cudaGetLastError();
}
