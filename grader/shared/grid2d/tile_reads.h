// Does a 2D tiled kernel compute from its shared tile? Shared memory in the launch only shows that a tile
// exists; how often the tiled launch reads its input per output value, counted exactly in CPU execution mode
// (gpulab/read_counter.h), shows that it is used: a kernel that computes from its tile reads each input value
// once plus its share of the halo, the naive kernel once per neighbour. Shared by lab 02 (the 5-point stencil,
// Technique.ComputesFromSharedTile) and lab 03 (the 3x3 blur, the same test).
#pragma once

#include "gpulab/launch_recorder.h"
#include "gpulab/read_counter.h"

#include <functional>
#include <string>
#include <vector>

namespace grid2d_grading {

// The launch of `launches` that covers the grid: the one with the most blocks (nullptr when there is none).
const gpulab::RecordedLaunch* main_launch(const std::vector<gpulab::RecordedLaunch>& launches);

// The halo a tile loads around its cells: the stencil's one-cell ring, with its corners (the 3x3 blur) or
// without them (the 5-point stencil never reads a corner).
enum class Halo { edges, edges_and_corners };

// Reads per output value of a launch of grid_x x grid_y blocks over an nx x ny grid if each block loaded its own
// cells and the halo around them once: the grid shared among the blocks along each axis.
double ideal_reads_per_output(unsigned grid_x, unsigned grid_y, int nx, int ny, Halo halo);

// One counted launch of the student's tiled launch function at one size.
struct CountedRun {
    std::string call;  // "launch_step_tiled(nx=129, ny=65)"
    std::string size;  // "129x65": the figure's and the recorded property's name for it
    int nx = 0, ny = 0;           // the grid the tiles cover (cells, pixels)
    double outputs = 0;           // the values it computes (cells, or pixels x channels)
    gpulab::ReadCount count;
    bool right = false;           // its output matched the oracle
    std::vector<gpulab::RecordedLaunch> launches;  // CPU execution mode's record: the grid, for the advice
};

// What the test says about a lab's stencil: its names and nouns. Every sentence is made from these and the halo
// model above, so a tile size the advice suggests comes with the reads it gives.
struct TiledStencil {
    std::string output;          // what a read count is per: "interior cell", "output byte"
    std::string element;         // what a tile holds: "cell", "pixel"
    std::string input;           // "`in`", "the input"
    std::string naive;           // "the naive stencil", "the naive kernel"
    int naive_reads = 5;         // its reads per output: its number of neighbours
    std::string neighbourhood;   // "the cell and its four neighbours": the values one output needs
    Halo halo = Halo::edges;
    std::string launch, kernel;  // "launch_step_tiled", "ftcs_tiled": the launch function and the kernel it runs
    std::string correctness_test;  // "TiledStep.MatchesOracle": where a wrong output is explained
    std::vector<std::pair<int, int>> suggested_tiles;  // tile sizes (x, y) the advice offers, e.g. {{32, 8}}
};

// The body of Technique.ComputesFromSharedTile: runs each of `runs` (the lab's sizes, and one drawn for this
// run), and holds the worst reads per output to `bound`. A size where the output is not right yet skips the
// test (the correctness test says why); a launch that copied the input to the host fails it.
void check_reads_per_output(const TiledStencil& stencil, double bound, const std::vector<std::function<CountedRun()>>& runs);

}  // namespace grid2d_grading
