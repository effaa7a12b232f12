// Does a tiled kernel read back what it stages in shared memory? Shared memory in a launch only shows that a tile
// is declared, and global reads per output only that the inputs came from somewhere cheaper than global memory:
// registers can give that too (a thread keeping a column of cells, or a patch of them, in its own variables). A
// kernel that fills its tile and computes from register columns loaded from global memory passes both; what it
// lacks is reads of the tile. So every counted technique test also counts the kernel's shared-memory accesses in
// CPU execution mode (gpulab/read_counter.h) and holds it to a number of reads per value it wrote there: a
// kernel that computes from its tile reads each staged value once for every output that needs it (a 3D 7-point
// stencil's tile: 7 reads per output for about 1.2 values staged per output, about 3 reads per value), one that
// reads around its tile none.
//
// Reads per value written, not per output: counting a shared access costs about 30 us in CPU execution mode (a
// page fault), so shared memory is counted in a few blocks of each launch and, in kernels whose blocks walk long
// loops (a column of 500 planes, all of K), up to a budget of accesses per block. Reads and writes of the same
// counted part keep their ratio; the outputs that part computed are not known.
#pragma once

#include "gpulab/lab_config.h"
#include "gpulab/read_counter.h"
#include "gpulab/timed_launch_count.h"

#include <functional>
#include <limits>
#include <string>

namespace gpulab {

// What the counted blocks did in shared memory (each up to its budget).
struct SharedReads {
    bool counted = false;                // some block's shared memory was counted
    std::string why;                     // where not counted on purpose: why
    double bytes_read = 0, bytes_written = 0;
    unsigned long long blocks = 0;       // blocks whose shared memory was counted
    unsigned long long blocks_capped = 0;  // of which counted only up to the budget
    // Reads per value written (bytes per byte); NaN where nothing was written.
    double reads_per_write() const;
    // "3.52 reads per value staged (12800 B written, 45056 B read, 1 block)"
    std::string describe() const;
};
SharedReads shared_reads_of(const AccessCount& count);

// lab.json technique "shared_reads": {"min_reads_per_write": 1.5, "faults_per_block": 12000, "least_class_share":
// 0.05, "small_blocks": 1}: the bar, and how sparingly shared memory is counted (faults_per_block 0: a block whole;
// small_blocks: the blocks a small grid's shared count runs, count_shared_sample).
struct SharedReadsBar {
    double min_reads_per_write = 0;
    unsigned long long faults_per_block = 0;
    double least_class_share = 0.05;
    unsigned long long small_blocks = 32;
    // Shared memory counted in one block of each class of a sampled launch's grid that holds at least
    // least_class_share of its blocks (the interior, and the faces of a large 3D grid), up to faults_per_block.
    SharedCounting counting() const;
};
SharedReadsBar shared_reads_bar(const Json& technique);

// The budget applies to every launch a count sees, so a launch function of hundreds of small kernels would cost
// minutes. Shared memory is counted only where the launch function makes at most as many launches as the GPU's
// drawn samples profile (kMaxProfiledKernels, profile_limits.h: more is the launch function's doing, and its
// speed points wait there); elsewhere its figure is left out and *why says so. `launches`: the launches the launch
// function made (a count's AccessCount::launches); a GeometryCheck's are learnt from a dry run (nothing runs).
SharedCounting shared_counting_for(unsigned long long launches, const SharedReadsBar& bar, std::string* why);
SharedCounting shared_counting_for(const GeometryCheck& launch, const SharedReadsBar& bar, std::string* why);

// A small grid's global reads are counted on every block; its shared memory would cost seconds there. This runs
// the launch once more, on a sample of its blocks (bar.small_blocks: corners, edges, then the interior), with only
// shared memory counted as `bar` says (no global range), where shared_counting_for allows it (`launches`: those the
// launch made in the first count, AccessCount::launches). The sampled run writes part of the output: call it after the output
// was checked.
SharedReads count_shared_sample(const std::function<void()>& launch, const SharedReadsBar& bar,
                                unsigned long long launches);

// A timed launch's shared reads from its count (`counted`, made with options.shared = shared_counting_for(...)); where
// none of its blocks' shared memory was counted (every class of its grid below bar.least_class_share: a grid of few
// blocks, or of many small ones), counted again with shared memory only, in one block of every class; where the
// count left shared memory out on purpose (options.shared.on false), not counted, with `why`.
SharedReads timed_shared_reads(const TimedLaunchCount& counted, TimedCountOptions options, const SharedReadsBar& bar,
                               const std::string& why = "");

// Shared elements read per output element over the blocks whose shared memory was counted whole (none capped):
// their shared bytes read over their output bytes written (`page_every`: the output range's page sample), the
// tile holding the output's type; NaN where no block was counted whole. For the record of the timed launch (gpulab/counted_work.h), where the lab's budget allows it.
double shared_elements_per_output(const AccessCount& count, std::size_t output_range, double page_every = 1);

// How a lab words the shared-reads failure: what its technique implies, for a kernel that reads too little of
// its tile.
struct SharedReadsWording {
    std::string kernel;   // "your tiled kernel"
    std::string tile;     // "its tile", "its three shared planes"
    std::string implies;  // "a tiled kernel reads each cell's 7 values from its tile, and stages about 1.2 values
                          // per cell there (its block's cells and their halo): about 3 reads per value staged"
};
// One launch's shared reads, where they were counted, and where the reads went instead (the same count's global
// reads per output, in the lab's words: "2.31 reads of the input per cell").
struct SharedReadsSeen {
    std::string label;  // "38x26x20 float", "512x512x512_float (timed)": the figure's name
    std::string where;  // the call and how it was counted
    SharedReads reads;
    std::string global;
};
// Fails the current test when the worst of `seen` reads fewer values per value staged than the bar allows, with
// a message that says what was counted, what the technique implies and where the reads went; records the figure
// "shared_reads_per_write_<label>" per launch. Returns the worst (NaN when nothing was counted).
double expect_reads_from_tile(const std::vector<SharedReadsSeen>& seen, const SharedReadsBar& bar,
                              const SharedReadsWording& wording);

}  // namespace gpulab
