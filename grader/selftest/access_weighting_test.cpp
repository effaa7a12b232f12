// The whole-launch estimate of CPU execution mode's access analysis (gpulab/timed_launch_count.h): a sample
// takes every corner, edge and face block of a grid, which are often aligned unlike its interior. Each sampled
// block must stand for its class of the grid, so that the sector use of a sample is the whole grid's.
#include "gpulab/timed_launch_count.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace {
using gpulab::AccessCount;
using gpulab::CountedLaunch;
using gpulab::RangeCount;

// A tiled kernel's block as the counter sees it: 8 load requests of 32 floats; the blocks at the grid's first
// and last x start on a sector (4 sectors a request), every other block straddles one (5), and the blocks of the
// last y row are cut short (half the requests).
RangeCount block_count(unsigned bx, unsigned by, dim3 grid) {
    RangeCount c;
    const unsigned long long requests = by + 1 == grid.y ? 4 : 8;
    const bool aligned = bx == 0 || bx + 1 == grid.x;
    c.load_requests = requests;
    c.load_lanes = 32 * requests;
    c.bytes_read = 128 * requests;
    c.load_sectors = (aligned ? 4 : 5) * requests;
    c.store_requests = requests;
    c.store_lanes = 32 * requests;
    c.bytes_written = 96 * requests;
    c.store_sectors = (aligned ? 3 : 4) * requests;
    return c;
}

void add(RangeCount& a, const RangeCount& b) {
    a.bytes_read += b.bytes_read, a.bytes_written += b.bytes_written;
    a.load_requests += b.load_requests, a.load_sectors += b.load_sectors, a.load_lanes += b.load_lanes;
    a.store_requests += b.store_requests, a.store_sectors += b.store_sectors, a.store_lanes += b.store_lanes;
}

TEST(WholeGridEstimate, SampledBlocksStandForTheirClassOfTheGrid) {
    const dim3 grid(20, 6, 5);
    // The whole grid, every block counted.
    RangeCount whole;
    for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
            for (unsigned x = 0; x < grid.x; ++x) add(whole, block_count(x, y, grid));
    // A sample as the counter takes one: every corner, one block of each edge, face and the interior, and a few
    // more interior blocks (some classes hold one block, the interior 18 x 4 x 3).
    std::mt19937 rng(7);
    auto pick = [&](int cls, unsigned g) -> unsigned {
        if (cls == 0) return 0;
        if (cls == 2) return g - 1;
        return 1 + rng() % (g - 2);
    };
    std::vector<dim3> blocks;
    for (int k = 0; k < 27; ++k) blocks.push_back(dim3(pick(k % 3, grid.x), pick(k / 3 % 3, grid.y), pick(k / 9, grid.z)));
    for (int i = 0; i < 5; ++i) blocks.push_back(dim3(pick(1, grid.x), pick(1, grid.y), pick(1, grid.z)));
    AccessCount count;
    count.available = true;
    count.ranges.assign(1, RangeCount{});
    CountedLaunch l;
    l.grid = grid;
    l.block = dim3(32, 8, 1);
    l.grid_blocks = 1ull * grid.x * grid.y * grid.z;
    l.sampled = true;
    l.range_count = 1;
    for (const dim3& b : blocks) {
        l.blocks.push_back(b);
        l.block_counts.push_back(block_count(b.x, b.y, grid));
        add(count.ranges[0], l.block_counts.back());
    }
    count.counted_launches.push_back(l);
    count.blocks_run = blocks.size();

    const gpulab::WholeGridCount e = gpulab::estimate_whole_grid(count);
    ASSERT_EQ(e.ranges.size(), 1u);
    EXPECT_EQ(e.grid_blocks, l.grid_blocks);
    EXPECT_EQ(e.covered_blocks, l.grid_blocks);
    const auto use = [](double bytes, double sectors) { return bytes / (32 * sectors); };
    EXPECT_NEAR(use(e.ranges[0].bytes_read, e.ranges[0].load_sectors), use(whole.bytes_read, whole.load_sectors), 1e-12);
    EXPECT_NEAR(use(e.ranges[0].bytes_written, e.ranges[0].store_sectors),
                use(whole.bytes_written, whole.store_sectors), 1e-12);
    EXPECT_NEAR(e.ranges[0].load_requests, double(whole.load_requests), 1e-9);
    EXPECT_NEAR(e.ranges[0].load_sectors, double(whole.load_sectors), 1e-9);
    EXPECT_NEAR(e.ranges[0].store_lanes, double(whole.store_lanes), 1e-9);
    // Summed raw, the aligned boundary blocks (most of the sample) would make the grid look better coalesced.
    const RangeCount& raw = count.ranges[0];
    EXPECT_GT(use(raw.bytes_read, raw.load_sectors) - use(whole.bytes_read, whole.load_sectors), 0.02);

    // Counted on one page in 4: the totals scale back, the sector use stays.
    const gpulab::WholeGridCount paged = gpulab::estimate_whole_grid(count, {4});
    EXPECT_NEAR(paged.ranges[0].load_sectors, 4.0 * whole.load_sectors, 1e-9);

    // A launch that ran whole counts as it ran.
    AccessCount all;
    all.available = true;
    all.ranges.assign(1, whole);
    CountedLaunch w;
    w.grid = grid;
    w.grid_blocks = l.grid_blocks;
    w.range_count = 1;  // more blocks than recorded: no block records
    all.counted_launches.push_back(w);
    const gpulab::WholeGridCount e2 = gpulab::estimate_whole_grid(all);
    EXPECT_NEAR(e2.ranges[0].load_sectors, double(whole.load_sectors), 1e-9);
    EXPECT_EQ(e2.covered_blocks, w.grid_blocks);
}

TEST(WholeGridEstimate, SampleReachingTheInterior) {
    EXPECT_EQ(gpulab::sample_reaching_interior(dim3(85, 85, 85), 24), 26u + 24u);
    EXPECT_EQ(gpulab::sample_reaching_interior(dim3(17, 17, 16), 24), 26u + 24u);
    EXPECT_EQ(gpulab::sample_reaching_interior(dim3(256, 1024, 1), 24), 8u + 24u);
    EXPECT_EQ(gpulab::sample_reaching_interior(dim3(4096, 1, 1), 24), 2u + 24u);
    EXPECT_EQ(gpulab::sample_reaching_interior(dim3(4, 3, 1), 24), 8u + 2u);  // an interior of 2 blocks
    EXPECT_EQ(gpulab::sample_reaching_interior(dim3(2, 100, 1), 24), 0u);     // no interior
}
// Lab 04's tiled stencil at 449^3 seen by its 8 corner blocks: a full block reads 8^3 cells and writes 6^3, a block
// cut by the grid's far edge writes half a tile and still reads its halo. Their figures disagree (the corners do not
// stand for the grid); the blocks of a 512^3 grid (510 = 85 x 6: no cut block) agree.
TEST(BytesPerByte, EachBlockAloneSoThatCornersThatDisagreeAreSeen) {
    auto launch = [](unsigned long long far_written) {
        CountedLaunch l;
        l.sampled = true;
        l.range_count = 2;  // the input (read), the output (written)
        for (unsigned i = 0; i < 8; ++i) {
            l.blocks.push_back(dim3(i & 1 ? 74 : 0, i & 2 ? 74 : 0, i & 4 ? 74 : 0));
            RangeCount in, out;
            in.bytes_read = 4ull * 8 * 8 * 8;
            out.bytes_written = i == 0 ? 4ull * 6 * 6 * 6 : far_written;
            l.block_counts.push_back(in);
            l.block_counts.push_back(out);
        }
        AccessCount c;
        c.counted_launches.push_back(l);
        return c;
    };
    const std::vector<double> cut = gpulab::bytes_per_byte_of_blocks(launch(4ull * 3 * 6 * 6));
    ASSERT_EQ(cut.size(), 8u);
    EXPECT_NEAR(cut.front(), 512.0 / 216, 1e-12);
    EXPECT_NEAR(*std::max_element(cut.begin(), cut.end()), 512.0 / 108, 1e-12);
    const std::vector<double> whole = gpulab::bytes_per_byte_of_blocks(launch(4ull * 6 * 6 * 6));
    EXPECT_EQ(*std::min_element(whole.begin(), whole.end()), *std::max_element(whole.begin(), whole.end()));
    // A block that wrote nothing has no figure.
    EXPECT_EQ(gpulab::bytes_per_byte_of_blocks(launch(0)).size(), 1u);
}

}  // namespace
