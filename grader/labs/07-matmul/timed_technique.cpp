#include "timed_technique.h"

#include "gpulab/random.h"
#include "gpulab/read_counter.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <tuple>

namespace matmul_grading {

std::string TimedReads::describe() const {
    std::ostringstream out;
    out << call << ", the launch the speed test times (" << blocks_judged << " of its " << grid_blocks
        << " blocks counted";
    if (blocks_counted > blocks_judged)
        out << " with whole tiles, " << blocks_counted - blocks_judged << " edge blocks besides";
    out << ")";
    return out.str();
}

namespace {
// The largest divisor of a block's tile side (in elements of C) that is at most 32: one in R rows (columns) of
// every whole tile is then counted, the same number in each.
int divisor_up_to_32(long long side) {
    for (long long d = std::min<long long>(side, 32); d > 1; --d)
        if (side % d == 0) return int(d);
    return 1;
}
}  // namespace

namespace {
TimedReads count_timed_reads_once(Kernel kernel, const gpulab::GeometryCheck& launch, unsigned long long blocks);
}  // namespace

// Counted once per process: Technique.ComputesFromSharedTiles and Technique.SameWorkOnGpu judge the same count
// (a few seconds a launch in CPU execution mode).
TimedReads count_timed_reads(Kernel kernel, const gpulab::GeometryCheck& launch, unsigned long long blocks) {
    static std::map<std::tuple<int, std::string, unsigned long long>, TimedReads> counted;
    const auto key = std::make_tuple(int(kernel), launch.call, blocks);
    const auto found = counted.find(key);
    if (found != counted.end()) return found->second;
    TimedReads out = count_timed_reads_once(kernel, launch, blocks);
    if (out.available) counted.emplace(key, out);
    return out;
}

namespace {
// The configuration alone, nothing counted.
TimedReads configuration_only(const gpulab::GeometryCheck& launch) {
    TimedReads out;
    out.call = launch.call;
    out.configuration = gpulab::timed_configuration(launch, launch.call);
    out.why = "not counted";
    return out;
}

// Which part of an N x N x N product is counted: one in R rows of A and C (and, for Bt, one in R' of its rows), a
// window of K drawn from the run's seed, and the ranges that watch them, in this order: A's window in each counted
// row; C's counted rows; C whole; then B's part (Bt's counted rows, or a band of `wb` rows of B).
struct CountedPart {
    bool bt = false;
    long long n = 0, w = 0, wb = 0, w0 = 0, v0 = 0;
    int row_every = 16, col_every = 16;
    std::vector<long long> rows, bt_rows;
    std::size_t a0() const { return 0; }
    std::size_t c_rows0() const { return rows.size(); }
    std::size_t c_all() const { return 2 * rows.size(); }
    std::size_t b0() const { return c_all() + 1; }
    std::size_t b_ranges() const { return bt ? bt_rows.size() : 1; }

    std::vector<gpulab::CountedRange> ranges(const std::vector<void*>& buffers) const {
        const auto at = [&](std::size_t buffer, long long element) {
            return static_cast<const void*>(static_cast<const float*>(buffers.at(buffer)) + element);
        };
        const std::size_t f = sizeof(float);
        std::vector<gpulab::CountedRange> out;
        for (long long r : rows) out.push_back({at(0, r * n + w0), std::size_t(w) * f});
        for (long long r : rows) out.push_back({at(2, r * n), std::size_t(n) * f});
        out.push_back({at(2, 0), std::size_t(n * n) * f});
        if (bt)
            for (long long c : bt_rows) out.push_back({at(1, c * n + w0), std::size_t(w) * f});
        else
            out.push_back({at(1, v0 * n), std::size_t(wb * n) * f});
        return out;
    }
};

CountedPart counted_part(Kernel kernel, const gpulab::GeometryCheck& launch) {
    CountedPart p;
    p.bt = takes_bt(kernel);
    p.n = std::llround(std::sqrt(double(launch.buffer_bytes.at(0)) / sizeof(float)));  // N x N x N
    // R, the rows counted (one in R): about one row of each block's tile of C, read from the launch's grid in a
    // dry run (a block covers ceil(N / grid.y) rows when y runs along the rows), 8 to 32. A counted row of A costs
    // a page of faults per block (1024 values at N = 4096), whatever the window. The same for C's columns (rows of
    // Bt), from grid.x.
    const std::vector<gpulab::RecordedLaunch> launches = gpulab::dry_run_timed(launch, 4096);
    const gpulab::KernelConfiguration c = gpulab::configuration_of(launches, launch.call);
    for (const gpulab::RecordedLaunch& l : launches)
        if (l.kernel == c.kernel && l.grid.x > 0 && l.grid.y > 0) {
            p.row_every = divisor_up_to_32((p.n + l.grid.y - 1) / l.grid.y);
            p.col_every = divisor_up_to_32((p.n + l.grid.x - 1) / l.grid.x);
        }
    // The window of K: one page of each counted row where rows are whole pages (N = 4096), else 256 values (a row
    // of 3001 values starts anywhere in a page: the window touches one or two).
    const long long n = p.n;
    p.w = std::min<long long>(n, n % 1024 == 0 ? 1024 : 256), p.wb = std::min<long long>(n, 8);
    // The part counted, drawn from the run's seed (and the call): which rows, which window of K.
    std::mt19937_64 draw(gpulab::run_seed() ^ (std::hash<std::string>{}(launch.call) * 0x9E3779B97F4A7C15ull));
    const long long phi = draw() % p.row_every, psi = draw() % p.col_every;
    p.w0 = n % 1024 == 0 ? 1024 * (long long)(draw() % (n / 1024)) : (long long)(draw() % (n - p.w + 1));
    p.v0 = draw() % (n - p.wb + 1);
    for (long long r = phi; r < n; r += p.row_every) p.rows.push_back(r);
    if (p.bt)
        for (long long col = psi; col < n; col += p.col_every) p.bt_rows.push_back(col);
    return p;
}

// The loads of A and B per multiply-add over the main launch's counted blocks with whole tiles of C (an edge block's
// partial tile is counted, not judged), and the shared reads per element of C of the blocks counted whole.
void judge_counted_blocks(const gpulab::CountedLaunch& main, const CountedPart& p, TimedReads& out) {
    out.grid_blocks = main.grid_blocks;
    // A block's elements of C count at most once each.
    const double cap = double((p.n + main.grid.x - 1) / main.grid.x) * double((p.n + main.grid.y - 1) / main.grid.y);
    struct Block {
        double a_loads = 0, b_loads = 0, c_rows = 0, c_all = 0;
    };
    std::vector<Block> counted;
    double most = 0;
    for (std::size_t i = 0; i < main.blocks.size(); ++i) {
        Block b;
        for (std::size_t r = 0; r < p.rows.size(); ++r) {
            b.a_loads += double(main.at(i, p.a0() + r).bytes_read) / sizeof(float);
            b.c_rows += double(main.at(i, p.c_rows0() + r).bytes_written) / sizeof(float);
        }
        b.c_all = double(main.at(i, p.c_all()).bytes_written) / sizeof(float);
        for (std::size_t r = 0; r < p.b_ranges(); ++r) b.b_loads += double(main.at(i, p.b0() + r).bytes_read) / sizeof(float);
        if (b.c_all > cap) b.c_rows *= cap / b.c_all, b.c_all = cap;
        most = std::max(most, b.c_all);
        counted.push_back(b);
    }
    out.blocks_counted = counted.size();
    double shared_read = 0, shared_c = 0;  // blocks whose shared memory was counted whole
    for (std::size_t i = 0; i < main.blocks.size() && i < main.block_shared.size(); ++i)
        if (main.block_shared[i].counted && !main.block_shared[i].blocks_capped)
            shared_read += double(main.block_shared[i].bytes_read) / sizeof(float), shared_c += counted[i].c_all;
    if (shared_c > 0) out.shared_per_c = shared_read / shared_c;
    double a_loads = 0, b_loads = 0, a_mads = 0, b_mads = 0;
    for (const Block& b : counted) {
        if (most == 0 || b.c_all < most) continue;  // an edge block's partial tile
        ++out.blocks_judged;
        const double am = b.c_rows * double(p.w), bm = p.bt ? b.c_all / p.col_every * double(p.w) : b.c_all * double(p.wb);
        a_loads += b.a_loads, b_loads += b.b_loads, a_mads += am, b_mads += bm;
        if (am > 0 && bm > 0) out.worst_block = std::max(out.worst_block, b.a_loads / am + b.b_loads / bm);
    }
    if (a_mads == 0 || b_mads == 0) {
        out.why = most == 0 ? "its counted blocks wrote no element of C"
                            : "its counted blocks wrote no element of C in the rows the count watches";
        return;
    }
    out.a_per_mad = a_loads / a_mads;
    out.b_per_mad = b_loads / b_mads;
    out.per_mad = out.a_per_mad + out.b_per_mad;
    out.available = true;
}

TimedReads count_timed_reads_once(Kernel kernel, const gpulab::GeometryCheck& launch, unsigned long long blocks) {
    if (blocks == 0) return configuration_only(launch);
    TimedReads out;
    out.call = launch.call;
    const CountedPart part = counted_part(kernel, launch);
    out.window = int(part.w), out.b_window = int(part.bt ? part.w : part.wb), out.row_every = part.row_every;
    gpulab::TimedCountOptions options;
    options.blocks = blocks;
    const gpulab::SharedReadsBar shared_bar = gpulab::shared_reads_bar(section("technique"));
    // The tiles' reads, in a block of the interior; not in the first look at one corner block (matmul_test.cpp: a
    // kernel that fails there is not counted further).
    std::string not_shared;
    if (blocks > 1) options.shared = gpulab::shared_counting_for(launch, shared_bar, &not_shared);
    options.ranges = [&part](const std::vector<void*>& buffers) { return part.ranges(buffers); };
    const gpulab::TimedLaunchCount count = gpulab::count_timed_launch(launch, options);
    out.seconds = count.seconds;
    out.launches = count.launches;
    out.configuration = gpulab::configuration_of(count.launches, launch.call);
    if (!count.count.available) {
        out.why = count.count.why;
        return out;
    }
    if (blocks > 1) out.shared = gpulab::timed_shared_reads(count, options, shared_bar, not_shared);
    // The main launch: the one with the most blocks (as configuration_of takes it).
    const gpulab::CountedLaunch* main = nullptr;
    for (const gpulab::CountedLaunch& l : count.count.counted_launches)
        if (!main || l.grid_blocks > main->grid_blocks) main = &l;
    if (!main || main->blocks.empty()) {
        out.why = main ? "no block of it ran" : "it launched no kernel";
        return out;
    }
    judge_counted_blocks(*main, part, out);
    return out;
}
}  // namespace

}  // namespace matmul_grading
