#include "tile_reads.h"

#include "gpulab/cuda_check.h"
#include "gpulab/device_facts.h"
#include "gpulab/device_resources.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

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

gpulab::KernelConfiguration launch_configuration(const gpulab::GeometryCheck& check) {
    if (gpulab::device_facts().emulated) {
        // CPU execution mode learns a kernel's static shared memory from the blocks that run (the most one block
        // reached): run a few, corners, edges and interior blocks, on buffers that cost only the pages they touch.
        gpulab::TimedCountOptions few;
        few.blocks = 8;
        return gpulab::configuration_of(gpulab::count_timed_launch(check, few).launches, check.call);
    }
    // A GPU's record has it from the compiled kernel: a dry run, nothing launched, on buffers of the full size (a
    // launch function may look at its pointers' allocations).
    std::vector<gpulab::DeviceBytes> buffers;
    std::vector<void*> pointers;
    for (std::size_t bytes : check.buffer_bytes) {
        buffers.emplace_back(bytes);
        pointers.push_back(buffers.back().get());
    }
    const std::vector<gpulab::RecordedLaunch> launches = gpulab::dry_run([&] { check.launch(pointers); });
    cudaGetLastError();  // a dry run launched nothing that could fail
    return gpulab::configuration_of(launches, check.call);
}

void expect_timed_launch_configured_as(const gpulab::KernelConfiguration& structure, const gpulab::GeometryCheck& timed,
                                       const std::string& launcher) {
    gpulab::KernelConfiguration seen = launch_configuration(timed);
    seen.where = timed.call + " (the launch the speed test times)";
    gpulab::expect_one_configuration({structure, seen}, launcher);
}

namespace {

// "cell" of "interior cell": the unit a figure's "reads/<unit>" counts in.
std::string unit_of(const TiledStencil& s) { return s.output.substr(s.output.rfind(' ') + 1); }

// Advice for a kernel between the bar and the naive kernel: are its tiles too small, or does it read some
// values from global memory?
std::string tiling_advice(const TiledStencil& s, const std::string& size, const std::vector<gpulab::RecordedLaunch>& launches,
                          int nx, int ny, double bound) {
    const gpulab::RecordedLaunch* main = main_launch(launches);
    const unsigned gx = main ? main->grid.x : 0, gy = main ? main->grid.y : 0;
    const double ideal = ideal_reads_per_output(gx, gy, nx, ny, s.halo);
    std::ostringstream out;
    out << "Your launch at " << size << " has " << gx << " x " << gy << " blocks; if each block loaded its own "
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

// The bytes each full block of the main launch wrote to the output: blocks in the grid's last column or row are
// left out (a tile cut short by the grid's edge writes less). One value for a kernel whose blocks all do the same
// work; empty when no full block ran.
std::set<unsigned long long> full_block_writes(const gpulab::AccessCount& count) {
    std::set<unsigned long long> writes;
    const gpulab::CountedLaunch* main = nullptr;
    for (const gpulab::CountedLaunch& l : count.counted_launches)
        if (!main || l.grid_blocks > main->grid_blocks) main = &l;
    if (!main || main->range_count <= kOutput) return writes;
    for (std::size_t i = 0; i < main->blocks.size(); ++i) {
        const dim3 b = main->blocks[i];
        if (b.x + 1 < main->grid.x && b.y + 1 < main->grid.y) writes.insert(main->at(i, kOutput).bytes_written);
    }
    return writes;
}

// The bytes one full block writes, per group, from the first launch whose full blocks all agreed.
struct BlockWork {
    unsigned long long bytes = 0;
    std::string where;
};

std::string bytes_text(unsigned long long b) { return std::to_string(b) + " bytes"; }

// A timed launch's full blocks must write what the small grids' full blocks wrote: the same kernel and block
// doing other work at the timed size (each block computing more cells, or writing each one more than once, which
// would also thin out its bytes read per byte written) is another configuration.
void expect_same_block_work(const BlockWork& small, const std::set<unsigned long long>& timed, const std::string& timed_where) {
    for (unsigned long long bytes : timed)
        if (bytes != small.bytes) {
            GPULAB_EXPECT(false) << timed_where << ": one of its full blocks wrote " << bytes_text(bytes)
                                 << " of output; at " << small.where << " each full block wrote " << bytes_text(small.bytes)
                                 << ". Same kernel, block and shared memory, but a block does different work at the "
                                    "size that is timed. The technique is judged on one configuration at every size: "
                                    "each block computes the same tile of the output at every size.";
            return;
        }
}

// CPU execution mode's count of a timed launch, per output element, for the GPU's comparison of its drawn timed
// samples (gpulab/counted_work.h): global elements read from every buffer, shared elements read in the blocks whose
// shared memory was counted whole.
void record_timed_count(const TiledStencil& s, const TimedRun& timed, const gpulab::TimedLaunchCount& t) {
    const double written = t.bytes_written(kOutput);
    double read = 0;
    for (std::size_t b = 0; b < t.page_every.size(); ++b) read += t.bytes_read(b);
    gpulab::CountedWork w;
    w.suite = timed.launch.suite, w.instance = timed.launch.instance, w.call = t.describe();
    w.kernel = s.counted_kernel, w.element = s.counted_element, w.per = s.counted_per;
    w.outputs = timed.outputs;
    w.element_bytes = s.element_bytes;
    w.global_per_output = read / written;  // bytes per byte: input and output elements are the same type
    w.shared_per_output = gpulab::shared_elements_per_output(t.count, kOutput, t.page_every.at(kOutput));
    gpulab::record_counted_work({w});
}

}  // namespace

TiledStencil tiled_stencil_of(const gpulab::Json& j) {
    TiledStencil s;
    s.output = j.at("output"), s.element = j.at("element"), s.input = j.at("input"), s.naive = j.at("naive");
    s.naive_reads = j.at("naive_reads");
    s.neighbourhood = j.at("neighbourhood");
    const std::string halo = j.at("halo");
    if (halo != "edges" && halo != "edges_and_corners")
        throw std::runtime_error("lab.json technique.stencil.halo: \"" + halo + "\" is neither edges nor edges_and_corners");
    s.halo = halo == "edges" ? Halo::edges : Halo::edges_and_corners;
    s.launch = j.at("launch"), s.kernel = j.at("kernel");
    s.correctness_test = j.at("correctness_test"), s.speed_test = j.at("speed_test");
    for (const gpulab::Json& tile : j.at("suggested_tiles")) s.suggested_tiles.push_back({tile.at(0), tile.at(1)});
    const gpulab::Json& shared = j.at("shared");
    s.shared = {shared.at("kernel"), shared.at("tile"), shared.at("implies")};
    const gpulab::Json& counted = j.at("counted");
    s.counted_kernel = counted.at("kernel"), s.counted_element = counted.at("element"), s.counted_per = counted.at("per");
    s.element_bytes = counted.at("element_bytes");
    return s;
}

void check_reads_per_output(const TiledStencil& s, double bound, const TechniqueRuns& runs) {
    const std::string unit = unit_of(s);
    std::map<std::string, std::vector<gpulab::KernelConfiguration>> configurations;
    std::map<std::string, BlockWork> block_work;
    for (const StructureLaunch& l : runs.structure) configurations[l.group].push_back(l.config);
    double worst = -1;
    std::string worst_call, figure, advice;
    const auto consider = [&](double per_output, const std::string& call, const std::string& size, const std::string& label,
                              const std::vector<gpulab::RecordedLaunch>& launches, int nx, int ny) {
        testing::Test::RecordProperty("reads_per_" + unit + "_" + size, fixed(per_output, 2));
        if (per_output > worst) {
            worst = per_output, worst_call = call;
            advice = tiling_advice(s, size, launches, nx, ny, bound);
        }
        figure += (figure.empty() ? "" : ", ") + fixed(per_output, 2) + " reads/" + unit + " at " + label;
    };

    std::vector<gpulab::SharedReadsSeen> shared;
    const auto global_words = [&](double per_output) {
        return fixed(per_output, 2) + " reads of " + s.input + " per " + s.output;
    };
    for (const auto& counted : runs.small) {
        const CountedRun run = counted();
        GPULAB_ASSERT(run.count.available) << "grader error: could not count the reads of " << run.call << ": " << run.count.why;
        if (!run.right)
            GTEST_SKIP() << run.call << " does not compute its output right at this size yet (" << s.correctness_test
                         << " says where); how it reads its input is judged once it does.";
        const gpulab::RangeCount& in = run.count.ranges.at(kInput);
        GPULAB_ASSERT(in.host_bytes_read == 0)
            << run.call << " copied " << in.host_bytes_read << " bytes out of " << s.input
            << " with cudaMemcpy while it ran. The tiled kernel reads " << s.input << " itself, into a shared-memory "
            << "tile, and computes from the tile.";
        consider(double(in.bytes_read) / run.output_bytes, run.call, run.size, run.size, run.launches, run.nx, run.ny);
        shared.push_back({run.size, run.call, run.shared,
                          global_words(double(in.bytes_read) / run.output_bytes)});
        configurations[run.group].push_back(gpulab::configuration_of(run.launches, run.call));
        const std::set<unsigned long long> writes = full_block_writes(run.count);
        if (writes.size() == 1 && !block_work.count(run.group)) block_work[run.group] = {*writes.begin(), run.call};
    }

    double seconds = 0;
    for (const TimedRun& timed : runs.timed) {
        gpulab::TimedCountOptions timed_options = runs.timed_options;
        std::string not_shared;  // in a few of its blocks: the tile's reads
        timed_options.shared = gpulab::shared_counting_for(timed.launch, runs.shared_bar, &not_shared);
        const gpulab::TimedLaunchCount t = gpulab::count_timed_launch(timed.launch, timed_options);
        seconds += t.seconds;
        GPULAB_ASSERT(t.count.available) << "grader error: could not count the timed launch " << t.describe() << ": "
                                         << t.count.why;
        const std::string where = t.describe() + ", the launch " + s.speed_test + " times";
        const double written = t.bytes_written(kOutput);
        GPULAB_EXPECT(written > 0) << where << ", wrote nothing to its output in the " << t.blocks_run
                                   << " blocks counted (corner, edge and interior blocks of its grid). Every block "
                                      "of the tiled kernel computes its tile of the output, at every size.";
        GPULAB_EXPECT(t.count.ranges.at(kInput).host_bytes_read == 0)
            << where << ", copied " << t.count.ranges.at(kInput).host_bytes_read << " bytes out of " << s.input
            << " with cudaMemcpy while it ran. The tiled kernel reads " << s.input << " itself.";
        configurations[timed.group].push_back(gpulab::configuration_of(t.launches, timed.launch.call));
        if (written <= 0) continue;
        consider(t.bytes_read(kInput) / written, where + ",", timed.launch.instance,
                 timed.launch.instance + " (timed, " + std::to_string(t.blocks_run) + " blocks)", t.launches, timed.nx, timed.ny);
        shared.push_back({timed.launch.instance + " (timed)", where,
                          gpulab::timed_shared_reads(t, timed_options, runs.shared_bar, not_shared),
                          global_words(t.bytes_read(kInput) / written)});
        record_timed_count(s, timed, t);
        if (block_work.count(timed.group)) expect_same_block_work(block_work.at(timed.group), full_block_writes(t.count), where);
    }
    testing::Test::RecordProperty("timed_count_seconds", fixed(seconds, 2));

    for (const auto& [group, seen] : configurations) gpulab::expect_one_configuration(seen, s.launch);

    if (worst < 0) return;  // nothing was counted: the failures above say why
    const std::string naive_reads = std::to_string(s.naive_reads);
    const double staged = gpulab::expect_reads_from_tile(shared, runs.shared_bar, s.shared);
    gpulab::record_figure(figure + " (naive: " + naive_reads + "); shared: " + fixed(staged, 2) + " reads per value staged",
                          "<= " + fixed(bound, 1) + " reads/" + unit + " (bytes of the input read per byte written); >= " +
                              fixed(runs.shared_bar.min_reads_per_write, 1) + " shared reads per value staged");
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
                                  << s.output << " (bytes read per byte written, counted exactly in CPU execution "
                                  << "mode; a tiled kernel reads each input " << s.element << " once into its tile, "
                                  << "plus its share of the halo; " << s.naive << " " << naive_reads << " times; "
                                  << "allowed: at most " << fixed(bound, 1) << ", at every size counted and on the "
                                  << "launch the speed test times). " << why;
}

}  // namespace grid2d_grading
