// Kernels whose device accesses the access counter must count in bytes (access_count_cases.cu,
// test_access_count.cpp).
#pragma once
#include <cuda_runtime.h>

// Copies n pixels of 3 bytes each as one 3-byte struct (g++ -O2 loads it with a 2-byte and a 1-byte load).
cudaError_t ac_copy_rgb(const unsigned char* in, unsigned char* out, int n);
// out[i] = in[i] for n float4s: one 16-byte load and one 16-byte store each.
cudaError_t ac_copy_float4(const float4* in, float4* out, int n);
// out[t] = the 16 bytes at base + offsets[t], any alignment (one unaligned 16-byte load each).
cudaError_t ac_load16_at(const unsigned char* base, const long long* offsets, float4* out, int count);
// b[i] = 2 * a[i], n floats.
cudaError_t ac_scale(const float* a, float* b, int n);
// p[i] += 1, n ints (one read-modify-write instruction each, on x86-64).
cudaError_t ac_increment(int* p, int n);
// out[t] = in[offsets[t]] for t < count (a lazy buffer: touches the pages of those elements only).
cudaError_t ac_touch(const float* in, float* out, const long long* offsets, int count);
// out[i] = in[i * stride], n floats, 128-thread blocks: a warp's load touches 32 / (8 / stride) sectors.
cudaError_t ac_gather_strided(const float* in, float* out, int n, int stride);
// A 32x32 tile per block of 32x32 threads (n a multiple of 32): stored row by row, then read back by column
// (out[x][y] = tile[tx][ty], a transpose) or by row. Unpadded column reads put all 32 lanes of a warp in one
// bank; a padded tile (33 floats a row) spreads them over all 32.
cudaError_t ac_tile_read(const float* in, float* out, int n, bool padded, bool by_column);
// The same with the tile in dynamic shared memory (unpadded, read by column).
cudaError_t ac_tile_read_dynamic(const float* in, float* out, int n);
// Stores whose memory operand Capstone 4 labels as a read (access_decode.cpp), run as a launch function of the
// kind a lab's timed launch is: `in` and `out` hold nx*ny*nz doubles (nx*ny*nz a multiple of 8).
//  1. A column walk, out[z][y][x] = 2 in[z][y][x] + 1 for every z, each thread up its column as lab 06's streaming
//     cheat does: g++ -O3 stores two planes at once, with movlpd and movhpd. 8 bytes read and written per cell.
//  2. nx*ny*nz/8 threads, each reading 16 bytes of `in` (the first quarter of it) and writing 64 bytes of `out`
//     with one store of each form: movlpd, movhpd, movupd, movups, movq and movnti (SSE intrinsics).
//  3. The column walk again, over the same buffers.
cudaError_t ac_walk_then_vector_stores_then_walk(const double* in, double* out, int nx, int ny, int nz);
// p[i % m] += 1.0f with atomicAdd for i < n: in CPU execution mode a load and a lock cmpxchg loop.
cudaError_t ac_atomic_add_float(float* p, int n, int m);
// One warp and a shared tile of 33 4-byte slots (one per lane, one more; `in` holds 132 bytes), read back into
// out[lane] in one of three ways: read 0, byte 1 of its slot; 1, bytes 0, 1 and 2 in one statement (g++ may
// merge them into wider loads); 2, byte 3 of its slot and byte 0 of the next as one value (g++ merges them
// into one 2-byte load straddling two words; nvcc makes two 1-byte loads).
cudaError_t ac_shared_slot_bytes(const unsigned char* in, int* out, int read);
// One warp and a shared tile of 64 float4 (float2), stored from in[0..63]; out[lane] = tile[lane * stride]:
// one 16-byte (8-byte) aligned load per lane, nvcc's LDS.128 (LDS.64).
cudaError_t ac_shared_float4(const float4* in, float4* out, int stride);
cudaError_t ac_shared_float2(const float2* in, float2* out, int stride);
// The same tile of float2, then the even lanes alone (a branch on threadIdx.x % 2): out[i] = tile[i], and
// tile[i + 32] = in[i].
cudaError_t ac_shared_float2_even_lanes(const float2* in, float2* out);
// One block of 8x8x8 threads and a [10][10][10] tile filled from in[0..999]; thread t (linear id) writes
// out[t] = tile[z][y][x] + 2 tile[z][y][x-1] + 3 tile[z][y][x+1] + 4 tile[z][y-1][x] + 5 tile[z][y+1][x]
// + 6 tile[z-1][y][x] + 7 tile[z+1][y][x], with (x, y, z) = threadIdx + 1 (lab 04's output-tile block).
cudaError_t ac_tile3d_double(const double* in, double* out);
cudaError_t ac_tile3d_float(const float* in, float* out);
// One warp and a shared tile of 72 doubles (from in[0..71]); lane i loads 16 bytes with one movupd, at tile[i]
// (step 1: 16-aligned in every other lane) or tile[2i + 1] (step 2), into out[2i], out[2i + 1].
cudaError_t ac_shared_double_pairs(const double* in, double* out, int step);
// One block of `threads` (at most 64) threads: each stores 0 to a shared slot and loads its neighbour's; odd lanes
// only load in[t] (a branch on threadIdx.x parity); every thread stores out[t] (in[t] for odd t, else 0).
cudaError_t ac_odd_lanes_load(const float* in, float* out, int threads);
// A grid-stride copy over a fixed grid of `blocks` blocks of 128 threads (n a multiple of 128): each step stages 128
// floats in a shared tile and writes them back, with a barrier after each half (staged: two phases a step), or copies
// them directly with no barrier at all (staged false).
cudaError_t ac_grid_stride_copy(const float* in, float* out, int n, int blocks, bool staged);
