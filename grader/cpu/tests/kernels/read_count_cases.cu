// Kernels whose reads of their input the read counter must count exactly (test_read_count.cpp).
#include "kernels.h"

#define RC_BX 32
#define RC_BY 8

// 5 reads of `in` per interior cell, none elsewhere.
__global__ void rc_naive_kernel(const float* in, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int c = y * w + x;
  out[c] = 0.5f * in[c] + 0.1f * in[c - 1] + 0.2f * in[c + 1] + 0.05f * in[c - w] + 0.15f * in[c + w];
}

// Loads a tile (one read per cell of the grid) and syncs, then reads the neighbours from global memory
// anyway: 1 + 4 reads per interior cell.
__global__ void rc_spoofed_kernel(const float* in, float* out, int w, int h) {
  __shared__ float tile[RC_BY][RC_BX];
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  bool inside = x < w && y < h;
  if (inside) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int c = y * w + x;
  out[c] = 0.5f * tile[threadIdx.y][threadIdx.x] + 0.1f * in[c - 1] + 0.2f * in[c + 1] + 0.05f * in[c - w] +
           0.15f * in[c + w];
}

// Writes into its input (a bug the counter reports as writes, and lets happen).
__global__ void rc_writes_input_kernel(float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) in[i] = in[i] + 1.0f;  // one read and one write each
}

// Reads one element past the end of `in`: an illegal address while counting too.
__global__ void rc_reads_past_end_kernel(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i < n ? i : 0] = in[i];
}

static dim3 rc_grid(int w, int h) { return dim3((w + RC_BX - 1) / RC_BX, (h + RC_BY - 1) / RC_BY); }

cudaError_t rc_naive(const float* in, float* out, int w, int h) {
  rc_naive_kernel<<<rc_grid(w, h), dim3(RC_BX, RC_BY)>>>(in, out, w, h);
  return cudaGetLastError();
}
cudaError_t rc_spoofed(const float* in, float* out, int w, int h) {
  rc_spoofed_kernel<<<rc_grid(w, h), dim3(RC_BX, RC_BY)>>>(in, out, w, h);
  return cudaGetLastError();
}
cudaError_t rc_writes_input(float* in, int n) {
  rc_writes_input_kernel<<<(n + 127) / 128, 128>>>(in, n);
  return cudaGetLastError();
}
cudaError_t rc_reads_past_end(const float* in, float* out, int n) {
  rc_reads_past_end_kernel<<<(n + 128) / 128, 128>>>(in, out, n);
  return cudaGetLastError();
}
