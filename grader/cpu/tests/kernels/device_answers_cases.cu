// What device code and a launch function may ask about the device, for test_gpu_answers.cpp: each answer must be
// the GPU's (issue 43, item 3).
#include <cuda_runtime.h>
#include "kernels.h"

#include <ctime>

__global__ void read_clocks(long long* out) {
  out[0] = clock();  // the GPU's cycle counter here (gpulab-cu2cpp), not the C library's processor time
  out[1] = clock64();
  out[2] = ::clock();  // nvcc's device pass: the same __host__ __device__ function
  out[3] = std::clock();
}

cudaError_t device_clocks(long long* out) {
  read_clocks<<<1, 1>>>(out);
  return cudaGetLastError();
}

__global__ void tiled_copy(const float* in, float* out) {
  __shared__ float tile[8][8];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 8 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 8 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

cudaError_t tile_kernel_attributes(cudaFuncAttributes* before, cudaFuncAttributes* after) {
  if (cudaError_t e = cudaFuncGetAttributes(before, tiled_copy)) return e;
  float* buffer = nullptr;
  if (cudaError_t e = cudaMalloc(&buffer, 2 * 64 * sizeof(float))) return e;
  cudaMemset(buffer, 0, 2 * 64 * sizeof(float));
  tiled_copy<<<1, dim3(8, 8)>>>(buffer, buffer + 64);
  cudaError_t e = cudaDeviceSynchronize();
  cudaFree(buffer);
  return e ? e : cudaFuncGetAttributes(after, tiled_copy);
}

__global__ void empty_kernel(int* out) {
  if (out) *out = 1;
}

cudaError_t empty_kernel_occupancy(int block, size_t dynamic_shared, int* blocks) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, empty_kernel, block, dynamic_shared);
}

cudaError_t empty_kernel_potential_block(int* min_grid, int* block) {
  return cudaOccupancyMaxPotentialBlockSize(min_grid, block, empty_kernel, 0, 0);
}
