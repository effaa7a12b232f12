// Does a 2D tiled kernel compute from its shared tile? Shared memory in the launch only shows that a tile
// exists; how many bytes of its input the tiled launch reads per byte of output, counted exactly in CPU execution
// mode (gpulab/read_counter.h), shows that it is used: a kernel that computes from its tile reads each input value
// once plus its share of the halo, the naive kernel once per neighbour. Bytes, not load instructions: the host
// compiler merges a pixel's three channel loads where nvcc does not. Shared by lab 02 (the 5-point stencil,
// Technique.ComputesFromSharedTile) and lab 03 (the 3x3 blur, the same test).
//
// A launch function can use the tile only where it is counted (a mode argument, a switch on the problem size,
// another kernel above some size), so the count is taken on small grids (every block) and on the launch the
// speed test times (gpulab/timed_launch_count.h: its own size and arguments, a sample of its blocks), held to one
// bar; and every launch the technique tests see must be one configuration (kernel, block, shared memory per
// block, and bytes written per full block).
#pragma once

#include "gpulab/counted_work.h"
#include "gpulab/lab_config.h"
#include "gpulab/launch_geometry.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/read_counter.h"
#include "gpulab/shared_reads.h"
#include "gpulab/timed_launch_count.h"

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

// The counted buffers of every run: the input, then the output.
constexpr std::size_t kInput = 0, kOutput = 1;

// One counted launch of the student's tiled launch function at one small size, every block run.
struct CountedRun {
    std::string call;   // "launch_step_tiled(nx=129, ny=65)"
    std::string size;   // "129x65": the figure's and the recorded property's name for it
    std::string group;  // launches compared for one configuration: "" (lab 02), "3 channels" (lab 03)
    int nx = 0, ny = 0;            // the grid the tiles cover (cells, pixels)
    double output_bytes = 0;       // the bytes of the values it computes (interior cells x 4, pixels x channels)
    gpulab::AccessCount count;     // ranges kInput and kOutput
    gpulab::SharedReads shared;    // a second run, shared memory only, on a sample of blocks (count_shared_sample)
    bool right = false;            // its output matched the oracle
    std::vector<gpulab::RecordedLaunch> launches;  // CPU execution mode's record: the grid, the configuration
};

// One timed launch of the tiled kernel (gpulab::timed_launches: buffers kInput, kOutput), counted on a sample of
// its blocks.
struct TimedRun {
    gpulab::GeometryCheck launch;
    std::string group;
    int nx = 0, ny = 0;
    double outputs = 0;  // the output elements it computes (cells; pixels x channels): the recorded count's unit
};

// The launch Technique.SharedMemoryTile (or its lab's name for it) judges, at its size, as a configuration.
struct StructureLaunch {
    std::string group;
    gpulab::KernelConfiguration config;
};

// The launch of `check` (a call, its buffers' sizes and the launch) as a configuration named by its call: on a GPU
// from a dry run (gpulab::dry_run), in CPU execution mode from a few of its blocks run (it learns a kernel's static
// shared memory from the blocks that run).
gpulab::KernelConfiguration launch_configuration(const gpulab::GeometryCheck& check);

// For the structure test on a GPU: the timed launch of the tiled kernel (launch_configuration) must be
// `structure`'s configuration, or the test fails naming both.
void expect_timed_launch_configured_as(const gpulab::KernelConfiguration& structure, const gpulab::GeometryCheck& timed,
                                       const std::string& launcher);

// What the test says about a lab's stencil: its names and nouns (lab.json technique.stencil: tiled_stencil_of). Every
// sentence is made from these and the halo model above, so a tile size the advice suggests comes with the reads it
// gives.
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
    std::string speed_test;        // "Speed.TiledThroughput": the test that times the timed launches
    std::vector<std::pair<int, int>> suggested_tiles;  // tile sizes (x, y) the advice offers, e.g. {{32, 8}}
    // The shared-memory reads the technique implies (gpulab/shared_reads.h), in the lab's words.
    gpulab::SharedReadsWording shared;
    // How the count of a timed launch is recorded (gpulab/counted_work.h): "your tiled kernel", "input", "cell", 4.
    std::string counted_kernel, counted_element = "input", counted_per;
    double element_bytes = 4;
};

// lab.json technique.stencil: the fields above by name, "halo" "edges" or "edges_and_corners", "shared" the wording
// of gpulab/shared_reads.h, "counted" {kernel, element, per, element_bytes}.
TiledStencil tiled_stencil_of(const gpulab::Json& stencil);

struct TechniqueRuns {
    std::vector<std::function<CountedRun()>> small;  // the lab's sizes, and one drawn for this run
    std::vector<TimedRun> timed;                     // the tiled kernel's timed launches
    gpulab::TimedCountOptions timed_options;         // blocks sampled per timed launch (its shared counting: set
                                                     // from shared_bar)
    std::vector<StructureLaunch> structure;          // the structure test's launches, recreated in a dry run
    gpulab::SharedReadsBar shared_bar;               // lab.json technique.shared_reads
};

// The body of Technique.ComputesFromSharedTile: counts each small run, then each timed launch, and holds the
// worst input bytes read per output byte to `bound` and the fewest shared reads per value staged to
// runs.shared_bar; all their launches and the structure test's must be one configuration per group. A small size
// where the output is not right yet skips the test (the correctness test says why); a launch that copied the input
// to the host fails it, as does a timed sample that wrote nothing. Each timed launch's count is recorded for the
// GPU's comparison (gpulab::record_counted_work).
void check_reads_per_output(const TiledStencil& stencil, double bound, const TechniqueRuns& runs);

}  // namespace grid2d_grading
