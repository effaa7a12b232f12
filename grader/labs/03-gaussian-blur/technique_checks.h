// Does the tiled kernel compute from a shared tile that holds its pixels and their halo? On a GPU its launch
// must give each block at least (tile + 2)^2 x channels bytes of shared memory, the tile being the image over the
// grid, and the launch the speed test times must be the same configuration (Technique.TiledUsesSharedTile); in CPU
// execution mode the bytes of the input it reads per output byte, counted exactly on small images and on a sample
// of the timed launch's blocks, must come near one plus its share of the halo, all in one configuration
// (Technique.ComputesFromSharedTile, grader/shared/grid2d/tile_reads.h).
#pragma once

namespace gaussian_blur_grading {

void check_tiled_uses_shared_tile();
void check_computes_from_shared_tile();

}  // namespace gaussian_blur_grading
