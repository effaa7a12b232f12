// Does a kernel use the technique its slot names? Checked on what it does, not on its speed (on Hopper
// the naive kernel outruns the textbook tiled one, so speed alone would reward the naive kernel in the
// tiled slot):
//  - structure, from the launch the student's code makes: shared memory per thread and how many z-planes
//    each thread covers (on a GPU and in CPU execution mode), local memory (register spills; GPU only);
//  - use, in CPU execution mode: how often the kernel reads its input per output cell, counted exactly.
#pragma once

#include "stencil_check.h"

namespace stencil3d_grading {

// Technique.<...>: naive no shared memory; tiled about one shared element per thread (an IN_TILE^3
// tile for IN_TILE^3 threads); coarsened about three (three IN_TILE^2 planes) and several z-planes per
// thread; register-tiled about one (only the current plane), several z-planes per thread, no spills.
// The timed launches (every speed case) must run the configuration seen here: kernel, block, shared memory.
void check_structure(Technique t);

// Technique.ComputesFrom... (CPU execution mode): reads of the input per interior cell (bytes read per byte
// written) at most lab.json technique.reads.max_per_cell (the naive stencil reads 7), on the small grids and on
// a sample of the blocks of every timed launch (timed_technique.h), all in one configuration; where a block's
// cells can be counted (no page sampling), a whole block writes as many cells at the timed size as on a small grid.
void check_reads(Technique t);

}  // namespace stencil3d_grading
