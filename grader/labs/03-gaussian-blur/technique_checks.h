// Does the tiled kernel compute from a shared tile that holds its pixels and their halo? On a GPU its launch
// must give each block at least (tile + 2)^2 x channels bytes of shared memory, the tile being the image over the
// grid (Technique.TiledUsesSharedTile); in CPU execution mode its reads of the input per output byte, counted
// exactly, must come near one plus its share of the halo (Technique.ComputesFromSharedTile,
// grader/shared/grid2d/tile_reads.h).
#pragma once

namespace gaussian_blur_grading {

void check_tiled_uses_shared_tile();
void check_computes_from_shared_tile();

}  // namespace gaussian_blur_grading
