// Does the tiled kernel use a shared-memory tile? Its launch must give it one, in the configuration the speed test
// times (Technique.SharedMemoryTile, on a GPU: and none to the naive kernel), and it must compute from it: its reads
// of `in` per interior cell, counted exactly in CPU execution mode in bytes on small grids and on a sample of the
// timed launch's blocks, near one plus its share of the halo, all in one configuration
// (Technique.ComputesFromSharedTile, grader/shared/grid2d/tile_reads.h). Speed cannot show this: on recent GPUs the caches make the naive kernel at
// least as fast.
#pragma once

namespace heat_2d_grading {

void check_shared_memory_tile(int kernel);
void check_computes_from_shared_tile();

}  // namespace heat_2d_grading
