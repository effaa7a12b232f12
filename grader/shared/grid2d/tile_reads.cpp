#include "tile_reads.h"

#include "gpulab/format.h"
#include "gpulab/grader_test.h"

#include <algorithm>
#include <sstream>

namespace grid2d_grading {

using gpulab::fixed;

const gpulab::RecordedLaunch* main_launch(const std::vector<gpulab::RecordedLaunch>& launches) {
    const gpulab::RecordedLaunch* most = nullptr;
    for (const auto& l : launches)
        if (!most || 1ull * l.grid.x * l.grid.y * l.grid.z > 1ull * most->grid.x * most->grid.y * most->grid.z) most = &l;
    return most;
}

double ideal_reads_per_output(unsigned grid_x, unsigned grid_y, int nx, int ny, Halo halo) {
    const double bx = std::min<double>(grid_x, nx), by = std::min<double>(grid_y, ny);
    return halo == Halo::edges ? 1 + 2 * bx / nx + 2 * by / ny : (1 + 2 * bx / nx) * (1 + 2 * by / ny);
}

namespace {

// "cell" of "interior cell": the unit a figure's "reads/<unit>" counts in.
std::string unit_of(const TiledStencil& s) { return s.output.substr(s.output.rfind(' ') + 1); }

// Advice for a kernel between the bar and the naive kernel: are its tiles too small, or does it read some
// values from global memory?
std::string tiling_advice(const TiledStencil& s, const CountedRun& run, double bound) {
    const gpulab::RecordedLaunch* main = main_launch(run.launches);
    const unsigned gx = main ? main->grid.x : 0, gy = main ? main->grid.y : 0;
    const double ideal = ideal_reads_per_output(gx, gy, run.nx, run.ny, s.halo);
    std::ostringstream out;
    out << "Your launch at " << run.size << " has " << gx << " x " << gy << " blocks; if each block loaded its own "
        << s.element << "s and the one-" << s.element << " halo around them once, that would be " << fixed(ideal, 2)
        << " reads per " << unit_of(s);
    if (ideal > bound) {
        out << ", over the bar already: give each block more " << s.element << "s (";
        for (std::size_t i = 0; i < s.suggested_tiles.size(); ++i) {
            const auto [x, y] = s.suggested_tiles[i];
            // A tile far from the grid's edges: the grid's size drops out of the model.
            out << (i ? ", " : "") << x << " x " << y << " tiles read about "
                << fixed(ideal_reads_per_output(1, 1, x, y, s.halo), 1) << (i ? "" : " times per " + unit_of(s));
        }
        out << ").";
    } else {
        out << ". Yours reads more: compute " << s.neighbourhood << " from the tile; some still come from global "
            << "memory, or " << s.element << "s are loaded more than once.";
    }
    return out.str();
}

}  // namespace

void check_reads_per_output(const TiledStencil& s, double bound, const std::vector<std::function<CountedRun()>>& runs) {
    const std::string unit = unit_of(s);
    double worst = -1;
    std::string worst_call, figure, advice;
    for (const auto& counted : runs) {
        const CountedRun run = counted();
        GPULAB_ASSERT(run.count.available) << "grader error: could not count the reads of " << run.call << ": " << run.count.why;
        if (!run.right)
            GTEST_SKIP() << run.call << " does not compute its output right at this size yet (" << s.correctness_test
                         << " says where); how it reads its input is judged once it does.";
        GPULAB_ASSERT(run.count.host_bytes_read == 0)
            << run.call << " copied " << run.count.host_bytes_read << " bytes out of " << s.input
            << " with cudaMemcpy while it ran. The tiled kernel reads " << s.input << " itself, into a shared-memory "
            << "tile, and computes from the tile.";
        const double per_output = double(run.count.reads) / run.outputs;
        testing::Test::RecordProperty("reads_per_" + unit + "_" + run.size, fixed(per_output, 2));
        if (per_output > worst) {
            worst = per_output, worst_call = run.call;
            advice = tiling_advice(s, run, bound);
        }
        figure += (figure.empty() ? "" : ", ") + fixed(per_output, 2) + " reads/" + unit + " at " + run.size;
    }
    const std::string naive_reads = std::to_string(s.naive_reads);
    gpulab::record_figure(figure + " (naive: " + naive_reads + ")", "<= " + fixed(bound, 1) + " global reads of the input per " + unit);
    std::string why;
    switch (gpulab::classify_tile_use(worst, s.naive_reads)) {
    case gpulab::TileUse::like_naive:
        why = "That is as often as " + s.naive + ", which reads " + s.neighbourhood + " from global memory: does " +
              s.launch + " launch " + s.kernel + ", and does it compute from its tile?";
        break;
    case gpulab::TileUse::beyond_naive:
        why = "That is more than " + s.naive + "'s " + naive_reads + ": your kernel copies a tile into shared memory but "
              "still reads its neighbours from global memory. Compute from the tile: after __syncthreads() every value "
              "the stencil needs (" + s.neighbourhood + ") comes from the __shared__ array.";
        break;
    case gpulab::TileUse::partly_from_global:
        why = advice;
    }
    GPULAB_EXPECT(worst <= bound) << worst_call << " reads " << s.input << " " << fixed(worst, 2) << " times per "
                                  << s.output << " (counted exactly in CPU execution mode; a tiled kernel reads each "
                                  << "input " << s.element << " once into its tile, plus its share of the halo; "
                                  << s.naive << " " << naive_reads << " times; allowed: at most " << fixed(bound, 1)
                                  << "). " << why;
}

}  // namespace grid2d_grading
