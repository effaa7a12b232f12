// The technique, measured on the launch the speed test times (issue 34). A launch function can use the technique
// at the sizes a technique test runs and something else at the timed size: a mode argument, a switch on the
// problem size, another kernel. So the technique tests of labs 04-06 also look at each registered timed launch
// (speed.cpp's timed_geometry_checks: the speed test's own call, size and coefficients):
//  - its configuration (kernel, block shape, shared memory per block), which must be the one the other technique
//    tests saw;
//  - in CPU execution mode, its reads of the input per output cell, counted on a sample of its blocks
//    (gpulab/timed_launch_count.h) and held to the same bar as the small grids.
#pragma once

#include "stencil_check.h"

#include "gpulab/shared_reads.h"
#include "gpulab/timed_launch_count.h"

#include <limits>
#include <string>
#include <vector>

namespace stencil3d_grading {

// The suite a technique's timed launches are registered under ("TiledStencil") and the speed test that times
// them ("Speed.TiledThroughput").
const char* timed_suite(Technique t);
std::string speed_test_of(Technique t);

// speed.cpp's timed_geometry_checks, each buffer described as the speed test draws it (speed.cpp's FreshDraw{}:
// values -1 ... 1 in the input's precision; the output not read): what a launch counted in its place is given. For
// the labs' registrations: add_geometry_checks([] { return with_timed_draws(timed_geometry_checks(t, suite)); }).
std::vector<gpulab::GeometryCheck> with_timed_draws(std::vector<gpulab::GeometryCheck> checks);

// The technique's timed launches (every speed case), in one precision.
std::vector<gpulab::GeometryCheck> timed_launches_of(Technique t, Precision p);

// The configuration a timed launch runs, without running its blocks' work: on a GPU a dry run (nothing launched);
// in CPU execution mode one block on lazy buffers (a kernel's static shared memory is learnt from a block that runs).
// `where` names the launch as the speed test's: "launch_stencil_tiled(float, 512 x 512 x 512), the launch
// Speed.TiledThroughput times". Exceptions from the launch function propagate.
gpulab::KernelConfiguration timed_configuration(Technique t, const gpulab::GeometryCheck& check);

// One timed launch counted in CPU execution mode.
struct TimedReads {
    std::string where;       // "launch_stencil_tiled(...) at 512 x 512 x 512, the launch Speed.TiledThroughput
                             // times (counted on 32 of its 614125 blocks)"
    std::string size;        // "512x512x512_float"
    Grid3 g;
    double per_cell = -1;    // input bytes read per output byte written, over the whole grid; < 0: nothing written
    double all_per_cell = -1;  // the same of every buffer (the input and, for a kernel that reads it, the output)
    double written = 0;      // the sample's output bytes (scaled back from its pages)
    double element_bytes = 4;  // the precision's: 4, 8
    // Its shared memory, counted in a few blocks as lab.json technique.shared_reads says (gpulab/shared_reads.h), and
    // the shared elements read per output cell where those blocks were counted whole (NaN where only up to a budget).
    gpulab::SharedReads shared;
    double shared_per_cell = std::numeric_limits<double>::quiet_NaN();
    unsigned long long host_bytes_read = 0;
    // Output elements each full block (no grid edge cuts it short) wrote: one entry per distinct figure. Left
    // empty where pages are sampled (a block's own count is then a sample of its pages, not its cells).
    std::vector<double> cells_per_full_block;
    gpulab::KernelConfiguration config;
    std::vector<gpulab::RecordedLaunch> launches;
    double seconds = 0;
    std::string why;         // the count is not available: why
    std::string spoiled;     // what spoiled the count, where something did
};

// Counts one timed launch with lab.json technique.reads.timed's sample (blocks, page_every), and its shared memory as
// technique.shared_reads says.
TimedReads count_timed_reads(Technique t, const gpulab::GeometryCheck& check);

// The output elements each full block of the main launch wrote (blocks at the grid's far edges, whose tiles may be
// cut short, left out), one entry per distinct figure.
std::vector<double> cells_per_full_block(const gpulab::AccessCount& count, std::size_t output_range,
                                         std::size_t element_bytes);

}  // namespace stencil3d_grading
