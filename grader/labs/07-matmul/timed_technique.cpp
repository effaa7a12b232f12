#include "timed_technique.h"

#include "gpulab/cuda_check.h"
#include "gpulab/device_resources.h"
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

std::vector<gpulab::RecordedLaunch> dry_run_timed(const gpulab::GeometryCheck& launch, std::size_t max_bytes) {
    std::vector<gpulab::DeviceBytes> buffers;
    std::vector<void*> pointers;
    for (std::size_t bytes : launch.buffer_bytes) {
        buffers.emplace_back(std::min(bytes, max_bytes));
        pointers.push_back(buffers.back().get());
    }
    std::vector<gpulab::RecordedLaunch> launches = gpulab::dry_run([&] { launch.launch(pointers); });
    cudaGetLastError();  // a dry run launched nothing that could fail
    return launches;
}

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
TimedReads count_timed_reads_once(Kernel kernel, const gpulab::GeometryCheck& launch, unsigned long long blocks) {
    TimedReads out;
    out.call = launch.call;
    if (blocks == 0) {  // the configuration alone: one block run, nothing counted (a dry run in CPU execution
                        // mode does not see a kernel's static shared memory)
        gpulab::TimedCountOptions options;
        options.blocks = 1;
        options.ranges = [](const std::vector<void*>&) { return std::vector<gpulab::CountedRange>{}; };
        const gpulab::TimedLaunchCount count = gpulab::count_timed_launch(launch, options);
        out.seconds = count.seconds;
        out.launches = count.launches;
        out.configuration = gpulab::configuration_of(count.launches, launch.call);
        out.why = "not counted";
        return out;
    }
    const bool bt = takes_bt(kernel);
    const long long n = std::llround(std::sqrt(double(launch.buffer_bytes.at(0)) / sizeof(float)));  // N x N x N
    // R, the rows counted (one in R): about one row of each block's tile of C, read from the launch's grid in a
    // dry run (a block covers ceil(N / grid.y) rows when y runs along the rows), 8 to 32. A counted row of A costs
    // a page of faults per block (1024 values at N = 4096), whatever the window.
    int row_every = 16, col_every = 16;  // and C's columns (rows of Bt), from grid.x
    {
        const std::vector<gpulab::RecordedLaunch> launches = dry_run_timed(launch, 4096);
        const gpulab::KernelConfiguration c = gpulab::configuration_of(launches, launch.call);
        for (const gpulab::RecordedLaunch& l : launches)
            if (l.kernel == c.kernel && l.grid.x > 0 && l.grid.y > 0) {
                row_every = divisor_up_to_32((n + l.grid.y - 1) / l.grid.y);
                col_every = divisor_up_to_32((n + l.grid.x - 1) / l.grid.x);
            }
    }
    const int kRowEvery = row_every;
    // The window of K: one page of each counted row where rows are whole pages (N = 4096), else 256 values (a row
    // of 3001 values starts anywhere in a page: the window touches one or two).
    const long long w = std::min<long long>(n, n % 1024 == 0 ? 1024 : 256), wb = std::min<long long>(n, 8);
    const int kColEvery = col_every;
    // The part counted, drawn from the run's seed (and the call): which rows, which window of K.
    std::mt19937_64 draw(gpulab::run_seed() ^ (std::hash<std::string>{}(launch.call) * 0x9E3779B97F4A7C15ull));
    const long long phi = draw() % kRowEvery, psi = draw() % kColEvery;
    const long long w0 = n % 1024 == 0 ? 1024 * (long long)(draw() % (n / 1024)) : (long long)(draw() % (n - w + 1));
    const long long v0 = draw() % (n - wb + 1);
    out.window = int(w), out.b_window = int(bt ? w : wb), out.row_every = kRowEvery;

    // Ranges: [0, rows) A's window in rows phi mod R; [rows, 2 rows) C's same rows; C whole; then B's part.
    std::vector<long long> rows, bt_rows;
    for (long long r = phi; r < n; r += kRowEvery) rows.push_back(r);
    if (bt)
        for (long long c = psi; c < n; c += kColEvery) bt_rows.push_back(c);
    const std::size_t a0 = 0, c_rows0 = rows.size(), c_all = 2 * rows.size(), b0 = c_all + 1;
    const std::size_t b_ranges = bt ? bt_rows.size() : 1;
    gpulab::TimedCountOptions options;
    options.blocks = blocks;
    const gpulab::SharedReadsBar shared_bar = gpulab::shared_reads_bar(section("technique"));
    // The tiles' reads, in a block of the interior; not in the first look at one corner block (matmul_test.cpp: a
    // kernel that fails there is not counted further).
    std::string not_shared;
    if (blocks > 1) options.shared = gpulab::shared_counting_for(launch, shared_bar, &not_shared);
    options.ranges = [&](const std::vector<void*>& buffers) {
        const auto at = [&](std::size_t buffer, long long element) {
            return static_cast<const void*>(static_cast<const float*>(buffers.at(buffer)) + element);
        };
        const std::size_t f = sizeof(float);
        std::vector<gpulab::CountedRange> ranges;
        for (long long r : rows) ranges.push_back({at(0, r * n + w0), std::size_t(w) * f});
        for (long long r : rows) ranges.push_back({at(2, r * n), std::size_t(n) * f});
        ranges.push_back({at(2, 0), std::size_t(n * n) * f});
        if (bt)
            for (long long c : bt_rows) ranges.push_back({at(1, c * n + w0), std::size_t(w) * f});
        else
            ranges.push_back({at(1, v0 * n), std::size_t(wb * n) * f});
        return ranges;
    };
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
    out.grid_blocks = main->grid_blocks;
    // A block's elements of C count at most once each.
    const double cap = double((n + main->grid.x - 1) / main->grid.x) * double((n + main->grid.y - 1) / main->grid.y);
    struct Block {
        double a_loads = 0, b_loads = 0, c_rows = 0, c_all = 0;
    };
    std::vector<Block> counted;
    double most = 0;
    for (std::size_t i = 0; i < main->blocks.size(); ++i) {
        Block b;
        for (std::size_t r = 0; r < rows.size(); ++r) {
            b.a_loads += double(main->at(i, a0 + r).bytes_read) / sizeof(float);
            b.c_rows += double(main->at(i, c_rows0 + r).bytes_written) / sizeof(float);
        }
        b.c_all = double(main->at(i, c_all).bytes_written) / sizeof(float);
        for (std::size_t r = 0; r < b_ranges; ++r) b.b_loads += double(main->at(i, b0 + r).bytes_read) / sizeof(float);
        if (b.c_all > cap) b.c_rows *= cap / b.c_all, b.c_all = cap;
        most = std::max(most, b.c_all);
        counted.push_back(b);
    }
    out.blocks_counted = counted.size();
    double shared_read = 0, shared_c = 0;  // blocks whose shared memory was counted whole
    for (std::size_t i = 0; i < main->blocks.size() && i < main->block_shared.size(); ++i)
        if (main->block_shared[i].counted && !main->block_shared[i].blocks_capped)
            shared_read += double(main->block_shared[i].bytes_read) / sizeof(float), shared_c += counted[i].c_all;
    if (shared_c > 0) out.shared_per_c = shared_read / shared_c;
    double a_loads = 0, b_loads = 0, a_mads = 0, b_mads = 0;
    for (const Block& b : counted) {
        if (most == 0 || b.c_all < most) continue;  // an edge block's partial tile
        ++out.blocks_judged;
        const double am = b.c_rows * double(w), bm = bt ? b.c_all / kColEvery * double(w) : b.c_all * double(wb);
        a_loads += b.a_loads, b_loads += b.b_loads, a_mads += am, b_mads += bm;
        if (am > 0 && bm > 0) out.worst_block = std::max(out.worst_block, b.a_loads / am + b.b_loads / bm);
    }
    if (a_mads == 0 || b_mads == 0) {
        out.why = most == 0 ? "its counted blocks wrote no element of C"
                            : "its counted blocks wrote no element of C in the rows the count watches";
        return out;
    }
    out.a_per_mad = a_loads / a_mads;
    out.b_per_mad = b_loads / b_mads;
    out.per_mad = out.a_per_mad + out.b_per_mad;
    out.available = true;
    return out;
}
}  // namespace

}  // namespace matmul_grading
