// The tiled kernels' technique on the launch the speed test times (issue 34): the same call, sizes and buffers
// (gpulab::timed_launches, registered in matmul_test.cpp), a sample of its blocks run in CPU execution mode, and
// how many elements of A and B those blocks load from global memory per multiply-add they feed.
//
// Counting every load of a sampled block costs too much at N = 4096 (a 32 x 32 tile block loads 262,144
// floats, about 3 s at ~10 us a counted access), and a random sample of pages is too noisy for a bar with a
// small margin (the rows of A a block reads are a few hundred pages, so a hashed 1-in-8 page sample leaves a
// block 4 to 16 pages of A: 25-50% error). So the count is exact on a part of the product chosen from the
// run's seed, with that part's own multiply-adds as the denominator:
//   A: a window of K (kk in [w0, w0 + W): W = 1024 values at N = 4096, one page of each row; 256 at N = 3001)
//      in one row of A out of every R (rows r = phi mod R; R the largest divisor of the block's rows of C, at
//      most 32: one or two rows a block), and C's same rows: loads of A there / (elements of C those blocks
//      wrote in those rows x W) is exact for any kernel (row i of A feeds row i of C only).
//   B (launch_matmul_tiled): rows [v0, v0 + 8) of B, one range: loads / (elements of C written x 8), exact.
//   Bt (launch_matmul_tiled_bt): the window of K in one row of Bt out of every R' (columns j = psi mod R' of C,
//      R' from the block's columns); C's columns are not one range each, so their elements are taken as 1/R'
//      of the elements written: exact when a block's columns are a multiple of R' (R' divides the tile width,
//      so for every whole tile of a kernel whose grid's x runs along the columns of C).
// A counted row costs a page of faults per block whatever the window (the block reads the whole row): about
// 2,000-3,000 faults per 32 x 32 block (A's row, C's tile, 8 rows of B's columns), 9 blocks, ~0.6 s a launch.
// A block's C elements count at most once each: no more than ceil(N / grid.x) x ceil(N / grid.y) per block
// (a kernel that writes C twice does not halve its figure). The bar is judged on the counted blocks that write
// a whole tile (the most elements of any counted block): at N = 3001 the edge blocks' partial tiles read more
// per multiply-add by geometry, not by technique.
#pragma once

#include "matmul_grading.h"

#include "gpulab/launch_geometry.h"
#include "gpulab/shared_reads.h"
#include "gpulab/timed_launch_count.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace matmul_grading {

struct TimedReads {
    std::string call;        // "launch_matmul_tiled(m=4096, n=4096, k=4096)"
    bool available = false;
    std::string why;         // when not available
    double per_mad = 0, a_per_mad = 0, b_per_mad = 0;  // loads of A and B per multiply-add, whole-tile blocks
    double worst_block = 0;  // the highest whole-tile block's figure
    // Its shared memory in a block of the grid's interior, up to lab.json technique.shared_reads' budget
    // (gpulab/shared_reads.h): a tile block reads each staged value once per row or column of its tile.
    gpulab::SharedReads shared;
    // Shared floats read per element of C, over the counted blocks whose shared memory was counted whole (NaN where
    // each was counted only up to the budget).
    double shared_per_c = std::numeric_limits<double>::quiet_NaN();
    unsigned long long blocks_judged = 0, blocks_counted = 0, grid_blocks = 0;
    int window = 0, b_window = 0, row_every = 0;
    gpulab::KernelConfiguration configuration;
    std::vector<gpulab::RecordedLaunch> launches;
    double seconds = 0;
    // "launch_matmul_tiled(m=4096, n=4096, k=4096), the launch the speed test times (3 of its 16384 blocks counted)"
    std::string describe() const;
};

// Counts one registered timed launch of a tiled kernel (blocks: the sample of each launch; 0: only its
// configuration, from a dry run), and its shared memory as lab.json technique.shared_reads says.
TimedReads count_timed_reads(Kernel kernel, const gpulab::GeometryCheck& launch, unsigned long long blocks);

}  // namespace matmul_grading
