#include "timed_technique.h"

#include "speed.h"

#include "gpulab/format.h"

#include <algorithm>
#include <map>

namespace stencil3d_grading {
namespace {

constexpr std::size_t kInput = 0, kOutput = 1;  // the timed launch's buffers: speed.cpp's geometry_check

// A block's place along each axis: first, inner or last. The block sample takes every corner, one block per
// edge and face and random inner blocks (gpulab/read_counter.h), so each sampled block stands for the blocks of
// its class; the class of a block in a grid of one or two blocks along an axis is just its index there.
struct BlockClass {
    int side[3];
    bool operator<(const BlockClass& o) const { return std::lexicographical_compare(side, side + 3, o.side, o.side + 3); }
};

BlockClass class_of(dim3 b, dim3 grid) {
    const unsigned at[3] = {b.x, b.y, b.z}, n[3] = {grid.x, grid.y, grid.z};
    BlockClass c{};
    for (int k = 0; k < 3; ++k) c.side[k] = n[k] <= 2 ? int(at[k]) : at[k] == 0 ? 0 : at[k] + 1 == n[k] ? 2 : 1;
    return c;
}

double blocks_in(const BlockClass& c, dim3 grid) {
    const unsigned n[3] = {grid.x, grid.y, grid.z};
    double blocks = 1;
    for (int k = 0; k < 3; ++k) blocks *= n[k] > 2 && c.side[k] == 1 ? n[k] - 2 : 1;
    return blocks;
}

// Bytes read from the input and written to the output by every block of the launches, estimated from the sampled
// blocks: each stands for the blocks of its class. A plain sum of the sample would over-weigh the corners (8 of
// 32 blocks, where a tile cut short by the grid's edge reads more per cell it writes: lab 04's 8^3 tile at 449^3
// reads 4.6 per cell in its far corner, 2.37 inside; a 16 x 16 coarsened tile at 512^3, whose last tiles are 6
// cells wide, 2.0 and 1.47). Unbiased, not exact: where pages are sampled, the few inner blocks stand for
// thousands with the page or two each of them counted (lab 05's 16 x 16 kernel: 1.4 to 1.8 from seed to seed).
// `all_read`: the bytes read from every range (the output too, for a kernel that reads it).
void whole_grid_bytes(const gpulab::AccessCount& count, double* read, double* written, double* all_read) {
    *read = *written = *all_read = 0;
    for (const gpulab::CountedLaunch& l : count.counted_launches) {
        std::map<BlockClass, int> sampled;
        for (const dim3& b : l.blocks) ++sampled[class_of(b, l.grid)];
        for (std::size_t i = 0; i < l.blocks.size(); ++i) {
            const BlockClass c = class_of(l.blocks[i], l.grid);
            const double weight = blocks_in(c, l.grid) / sampled[c];
            *read += weight * double(l.at(i, kInput).bytes_read);
            *written += weight * double(l.at(i, kOutput).bytes_written);
            for (std::size_t r = 0; r < l.range_count; ++r) *all_read += weight * double(l.at(i, r).bytes_read);
        }
    }
}

Grid3 grid_of_instance(const gpulab::GeometryCheck& check) {
    for (const StencilCase& c : speed_cases())
        if (check.instance == c.g.name() + "_" + precision_name(c.precision)) return c.g;
    throw std::runtime_error("grader error: no speed case for the timed launch " + check.call);
}

std::string timed_where(Technique t, const gpulab::GeometryCheck& check) {
    return check.call + ", the launch " + speed_test_of(t) + " times";
}

}  // namespace

const char* timed_suite(Technique t) {
    static const char* const suites[] = {"NaiveStencil", "TiledStencil", "CoarsenedStencil", "RegisterTiledStencil"};
    return suites[int(t)];
}

std::string speed_test_of(Technique t) {
    static const char* const tests[] = {"NaiveThroughput", "TiledThroughput", "CoarsenedThroughput",
                                        "RegisterTiledThroughput"};
    return std::string("Speed.") + tests[int(t)];
}

std::vector<gpulab::GeometryCheck> with_timed_draws(std::vector<gpulab::GeometryCheck> checks) {
    for (gpulab::GeometryCheck& check : checks) {
        // The precision from the buffer's size: speed.cpp's buffers hold the grid's cells of one type.
        const bool f64 = check.buffer_bytes.at(kInput) == grid_of_instance(check).cells() * sizeof(double);
        const gpulab::BufferDraw in = f64 ? gpulab::BufferDraw::doubles(gpulab::FreshDraw{})
                                          : gpulab::BufferDraw::floats(gpulab::FreshDraw{});
        check.draws = {in, gpulab::BufferDraw::output_like(in)};
    }
    return checks;
}

std::vector<gpulab::GeometryCheck> timed_launches_of(Technique t, Precision p) {
    std::vector<gpulab::GeometryCheck> out;
    const std::string suffix = std::string("_") + precision_name(p);
    for (const gpulab::GeometryCheck& check : gpulab::timed_launches(timed_suite(t)))
        if (check.instance.size() > suffix.size() &&
            check.instance.compare(check.instance.size() - suffix.size(), suffix.size(), suffix) == 0)
            out.push_back(check);
    return out;
}

gpulab::KernelConfiguration timed_configuration(Technique t, const gpulab::GeometryCheck& check) {
    return gpulab::timed_configuration(check, timed_where(t, check));
}

std::vector<double> cells_per_full_block(const gpulab::AccessCount& count, std::size_t output_range,
                                         std::size_t element_bytes) {
    std::vector<double> cells;
    const gpulab::CountedLaunch* main = nullptr;
    for (const gpulab::CountedLaunch& l : count.counted_launches)
        if (!main || l.grid_blocks > main->grid_blocks) main = &l;
    if (!main || main->range_count <= output_range) return cells;
    for (std::size_t i = 0; i < main->blocks.size(); ++i) {
        const dim3 b = main->blocks[i];
        if (b.x + 1 >= main->grid.x || b.y + 1 >= main->grid.y || b.z + 1 >= main->grid.z) continue;
        const double c = double(main->at(i, output_range).bytes_written) / double(element_bytes);
        if (std::find(cells.begin(), cells.end(), c) == cells.end()) cells.push_back(c);
    }
    return cells;
}

namespace {
TimedReads count_timed_reads_once(Technique t, const gpulab::GeometryCheck& check);
}  // namespace

// Counted once per process: the technique's read test and Technique.SameWorkOnGpu judge the same count.
TimedReads count_timed_reads(Technique t, const gpulab::GeometryCheck& check) {
    static std::map<std::pair<int, std::string>, TimedReads> counted;
    const auto key = std::make_pair(int(t), check.call);
    const auto found = counted.find(key);
    if (found != counted.end()) return found->second;
    TimedReads out = count_timed_reads_once(t, check);
    if (out.why.empty()) counted.emplace(key, out);
    return out;
}

namespace {
TimedReads count_timed_reads_once(Technique t, const gpulab::GeometryCheck& check) {
    const gpulab::Json& spec = section("technique").at("reads").at("timed");
    gpulab::TimedCountOptions options;
    options.blocks = spec.at("blocks").get<unsigned long long>();
    // A grid-stride loop over 96 blocks, each walking about 48 tiles of 32 planes, ran past the test's 120 s under
    // CPU execution mode's own ceiling. A count stopped there gives the ratios of what it counted, and says so (spoiled).
    options.max_accesses = gpulab::kMaxTimedCountAccesses;
    // Input and output counted on the same pages (one page seed, one layout): their ratio keeps its expectation.
    const unsigned every = spec.value("page_every", 1u);
    options.page_every = {every, every};
    const gpulab::SharedReadsBar shared_bar = gpulab::shared_reads_bar(section("technique"));
    std::string not_shared;  // the tile's reads, in a few blocks
    options.shared = gpulab::shared_counting_for(check, shared_bar, &not_shared);
    const gpulab::TimedLaunchCount counted = gpulab::count_timed_launch(check, options);
    TimedReads r;
    r.size = check.instance;
    r.g = grid_of_instance(check);
    r.seconds = counted.seconds;
    r.launches = counted.launches;
    r.where = timed_where(t, check) + " (counted on " + std::to_string(counted.blocks_run) + " of its " +
              std::to_string(counted.grid_blocks) + " blocks" + (every > 1 ? ", one page in " + std::to_string(every) : "") +
              ")";
    r.config = gpulab::configuration_of(counted.launches, timed_where(t, check));
    if (!counted.count.available) {
        r.why = counted.count.why;
        return r;
    }
    r.host_bytes_read = counted.count.ranges.at(kInput).host_bytes_read;
    if (!counted.count.why.empty()) r.spoiled = counted.count.why;
    double read = 0, written = 0, all_read = 0;
    whole_grid_bytes(counted.count, &read, &written, &all_read);
    r.written = counted.bytes_written(kOutput);
    if (written > 0) r.per_cell = read / written, r.all_per_cell = all_read / written;
    const std::size_t element = check.buffer_bytes.at(kOutput) / r.g.cells();
    r.element_bytes = double(element);
    r.shared = gpulab::timed_shared_reads(counted, options, shared_bar, not_shared);
    r.shared_per_cell = gpulab::shared_elements_per_output(counted.count, kOutput, every);
    if (every == 1) r.cells_per_full_block = cells_per_full_block(counted.count, kOutput, element);
    return r;
}
}  // namespace

}  // namespace stencil3d_grading
