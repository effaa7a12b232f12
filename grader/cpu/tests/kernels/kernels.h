// Host entry points of the test kernels (each implemented in a .cu file next to this header, compiled for
// the CPU through gpulab-cu2cpp). Pointers are device pointers; each returns cudaGetLastError() after its
// launch(es), like a lab's launch function.
#pragma once
#include <cuda_runtime.h>
#include <cstdint>

cudaError_t stencil1d_tiled(const float* in, float* out, int n, float cl, float cc, float cr);
cudaError_t stencil1d_dynamic(const float* in, float* out, int n, float cl, float cc, float cr, int block,
                              cudaStream_t stream);
cudaError_t stencil3d_tiled(const float* in, float* out, unsigned n, const float c[7]);
cudaError_t stencil3d_coarsened(const float* in, float* out, unsigned n, const float c[7]);
cudaError_t stencil2d_constant_set(const float c[5]);
cudaError_t stencil2d_constant(const float* in, float* out, int width, int height);
cudaError_t matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k);
cudaError_t block_sums(const float* in, float* out, int n);  // file-scope __shared__, tree reduction
// Histogram of values in [0, bins) plus sum (float and double), max, min, count of odd values.
struct AtomicsResult {
  float fsum;
  double dsum;
  int imax;
  int imin;
  unsigned odd_count;
  unsigned cas_count;
};
cudaError_t atomics_run(const int* values, int n, unsigned* hist, int bins, AtomicsResult* result_dev);

// Out-of-range threads return before __syncthreads() (correct on cc >= 7.0).
cudaError_t early_exit_stencil(const float* in, float* out, int n, float cl, float cc, float cr);
cudaError_t early_exit_predicates(int* result);  // 2 blocks x {count, and, or}

// Read counting (w x h floats, row-major): naive 5-point stencil; a tile loaded and then not used.
cudaError_t rc_naive(const float* in, float* out, int w, int h);
cudaError_t rc_spoofed(const float* in, float* out, int w, int h);
cudaError_t rc_writes_input(float* in, int n);
cudaError_t rc_reads_past_end(const float* in, float* out, int n);

// Unusual launch / __shared__ spellings; p has 32 floats, each must end up 12.
cudaError_t rewriter_cases(float* p);

// Planted bugs.
cudaError_t stencil3d_tiled_nosync(const float* in, float* out, unsigned n, const float c[7]);
cudaError_t smooth_inplace(float* x, int n);
cudaError_t fill_off_by_one(float* out, int n);
cudaError_t divergent_barrier(float* out);  // 2 x 64 floats
cudaError_t skipped_barrier(float* out);    // 2 x 64 floats
cudaError_t device_assert_negative(const float* in, int n);

// Static __shared__ arrays in the guarded arena (kernels/shared_arena_cases.cu).
cudaError_t shared_two_arrays(float* out, uintptr_t* addr, int blocks);  // out: blocks x 64; addr: 5 words
cudaError_t shared_other_kernel(float* out);                           // 32 floats
cudaError_t shared_reverse(float* out, int n);                         // n = 16 or 48
cudaError_t shared_lambdas(float* out);                                // 32 floats
// ... and accesses outside them (bad/shared_overrun.cu).
cudaError_t shared_corner_halo(const float* in, float* out, int n);  // in/out: 256 floats
cudaError_t shared_read_past_end(float* out);                        // 4 x 64 floats
cudaError_t shared_write_before_start(float* out);                   // 4 x 64 floats
cudaError_t shared_first_of_two(float* out);                         // 2 x 32 floats

// __CUDA_ARCH__ as device code sees it (kernels/cuda_arch_cases.cu): 4 ints.
cudaError_t cuda_arch_values(int* out);

// nvcc's macros of both passes as device and host code see them (kernels/cuda_macros_cases.cu): 6 ints.
cudaError_t cuda_macros_values(int* out);

// What device code and a launch function ask about the device (kernels/device_answers_cases.cu).
cudaError_t device_clocks(long long* out);  // out: clock(), clock64(), ::clock(), std::clock() in one thread
// cudaFuncGetAttributes of a kernel with an 8 x 8 float tile, before and after its first launch.
cudaError_t tile_kernel_attributes(cudaFuncAttributes* before, cudaFuncAttributes* after);
cudaError_t empty_kernel_occupancy(int block, size_t dynamic_shared, int* blocks);
cudaError_t empty_kernel_potential_block(int* min_grid, int* block);
