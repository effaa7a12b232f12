// Lab 07's technique tests: the tiled kernels declare tiles (Technique.TiledUsesSharedMemory) and compute from
// them (Technique.ComputesFromSharedTiles), counted in CPU execution mode on small shapes and the timed launches.
#pragma once

namespace matmul_grading {

void check_tiled_uses_shared_memory();
void check_computes_from_shared_tiles();

}  // namespace matmul_grading
