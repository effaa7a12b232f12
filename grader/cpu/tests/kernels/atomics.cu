// Atomics on shared and global memory: shared-memory histogram, float/double sums, max/min, a CAS loop,
// and __syncthreads_count.
#include "kernels.h"

#define MAX_BINS 64

__device__ void cas_increment(unsigned* p) {
  unsigned old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, assumed + 1);
  } while (old != assumed);
}

__global__ void atomics_kernel(const int* values, int n, unsigned* hist, int bins, AtomicsResult* r) {
  __shared__ unsigned hist_s[MAX_BINS];
  for (int b = threadIdx.x; b < bins; b += blockDim.x) hist_s[b] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int odd = 0;
  if (i < n) {
    int v = values[i];
    atomicAdd(&hist_s[v], 1u);
    atomicAdd(&r->fsum, (float)v);
    atomicAdd(&r->dsum, (double)v);
    atomicMax(&r->imax, v);
    atomicMin(&r->imin, v);
    cas_increment(&r->cas_count);
    odd = v & 1;
  }
  int odd_in_block = __syncthreads_count(odd);
  if (threadIdx.x == 0) atomicAdd(&r->odd_count, (unsigned)odd_in_block);
  for (int b = threadIdx.x; b < bins; b += blockDim.x) atomicAdd(&hist[b], hist_s[b]);
}

cudaError_t atomics_run(const int* values, int n, unsigned* hist, int bins, AtomicsResult* r) {
  atomics_kernel<<<(n + 127) / 128, 128>>>(values, n, hist, bins, r);
  return cudaGetLastError();
}
