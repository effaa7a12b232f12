// The causes a slow kernel is given come from its measured figures and the CUDA occupancy calculation
// (gpulab/access_diagnosis.h): each can be found, and none is given where the figures show nothing.
#include "gpulab/access_diagnosis.h"
#include "gpulab/launch_recorder.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using gpulab::diagnose;
using gpulab::MemoryFigures;
using gpulab::theoretical_occupancy;

std::vector<std::string> causes(const MemoryFigures& f) {
    std::vector<std::string> out;
    for (const auto& d : diagnose(f)) out.push_back(d.cause);
    return out;
}

MemoryFigures healthy() {
    MemoryFigures f;
    f.threads_per_block = 256;
    return f;
}

TEST(AccessDiagnosis, OccupancyOfTheCourseGpus) {
    EXPECT_DOUBLE_EQ(theoretical_occupancy(256, 0).theoretical, 1.0);
    EXPECT_DOUBLE_EQ(theoretical_occupancy(128, 0).theoretical, 1.0);  // 16 blocks of 4 warps
    EXPECT_DOUBLE_EQ(theoretical_occupancy(32, 0).theoretical, 0.5);   // 32 blocks of one warp
    EXPECT_EQ(theoretical_occupancy(32, 0).limiter, "blocks per SM");
    EXPECT_EQ(theoretical_occupancy(1024, 0).blocks_per_sm, 2);
    const auto big_tile = theoretical_occupancy(256, 120 * 1024);  // one block of 8 warps per SM
    EXPECT_EQ(big_tile.blocks_per_sm, 1);
    EXPECT_EQ(big_tile.limiter, "shared memory");
    EXPECT_DOUBLE_EQ(big_tile.theoretical, 8.0 / 64);
    EXPECT_EQ(theoretical_occupancy(256, 0, 128).limiter, "registers");  // 64 Ki / (128 x 256) = 2 blocks
    EXPECT_DOUBLE_EQ(theoretical_occupancy(256, 0, 128).theoretical, 0.25);
}

TEST(AccessDiagnosis, NothingToSayAboutAHealthyKernel) { EXPECT_TRUE(causes(healthy()).empty()); }

TEST(AccessDiagnosis, EachCauseFromItsFigure) {
    MemoryFigures f = healthy();
    f.load_sector_use = 0.125, f.load_sectors_per_lane = 1;  // every lane a sector of its own
    EXPECT_EQ(causes(f), std::vector<std::string>{"uncoalesced-loads"});
    f = healthy();
    f.store_sector_use = 0.25, f.store_sectors_per_lane = 0.5;
    EXPECT_EQ(causes(f), std::vector<std::string>{"uncoalesced-stores"});
    // 32 lanes reading one byte each of neighbouring RGB pixels: a third of each sector, but the lanes share them
    // (and the next channels' requests hit the same sectors): no cause.
    f = healthy();
    f.load_sector_use = 0.29, f.load_sectors_per_lane = 3.0 / 32;
    EXPECT_TRUE(causes(f).empty());
    f = healthy();
    f.shared_load_conflicts_per_request = 31;
    EXPECT_EQ(causes(f), std::vector<std::string>{"bank-conflicts"});
    f.shared_load_conflicts_per_request = 0.5;  // half a turn: not worth naming
    EXPECT_TRUE(causes(f).empty());
    f = healthy();
    f.threads_per_block = 32;
    EXPECT_EQ(causes(f), std::vector<std::string>{"small-blocks"});
    f = healthy();
    f.shared_bytes = 120 * 1024;
    EXPECT_EQ(causes(f), std::vector<std::string>{"shared-memory-limits-occupancy"});
    f = healthy();
    f.local_bytes = 64;
    EXPECT_EQ(causes(f), std::vector<std::string>{"register-spills"});
}

// Lab 01's 128-thread kernel on the H200: Nsight Compute measured 26% achieved occupancy of the 100% its blocks
// allow; the sentence says so with both numbers.
TEST(AccessDiagnosis, BlocksThatEndBeforeTheyStart) {
    MemoryFigures f = healthy();
    f.threads_per_block = 128;
    f.achieved_occupancy = 0.26;
    const auto d = diagnose(f);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].cause, "blocks-end-before-they-start");
    EXPECT_NE(d[0].text.find("26% of the 100% your 128-thread blocks allow"), std::string::npos) << d[0].text;
    f.achieved_occupancy = 0.9;
    EXPECT_TRUE(causes(f).empty());
}

}  // namespace

namespace {
// Requests with idle lanes (CPU execution mode): a warp split in two by threadIdx.x parity is named; lab 04's
// input-tile reference (84% of requests with idle lanes, 20.2 lanes active) and a block of 16 threads (every request
// short but none idle) are not; not counted (< 0) says nothing.
TEST(AccessDiagnosis, DivergentWarpsOnlyWhereHalfTheLanesIdle) {
    const auto named = [](double share, double lanes) {
        MemoryFigures f = healthy();
        f.idle_lane_request_share = share, f.active_lanes_per_request = lanes;
        const auto c = causes(f);
        return std::find(c.begin(), c.end(), "divergent-warps") != c.end();
    };
    EXPECT_TRUE(named(1.0, 16.0));    // lab 01's slow/parity-split-warps
    EXPECT_TRUE(named(0.3, 8.0));
    EXPECT_FALSE(named(0.84, 20.2));  // lab 04's reference
    EXPECT_FALSE(named(0.0, 16.0));   // 16-thread blocks: short warps, no idle lane
    EXPECT_FALSE(named(0.2, 12.0));   // few requests idle
    EXPECT_FALSE(named(-1, -1));      // not counted
    MemoryFigures f = healthy();
    f.idle_lane_request_share = 1.0, f.active_lanes_per_request = 16.0;
    const auto d = diagnose(f);
    ASSERT_FALSE(d.empty());
    EXPECT_NE(d.front().text.find("100%"), std::string::npos) << d.front().text;
    EXPECT_NE(d.front().text.find("16.0 of 32"), std::string::npos) << d.front().text;
}
}  // namespace

namespace {

// A grid with fewer blocks than half of what the GPU holds at once (issue 45, item 4): a grid-stride loop over a
// fixed 96 blocks of 256 threads on an H100's 132 SMs (8 such blocks each: 1056 at once) is named, with the SMs left
// idle; the course's grids (lab 01: 262144 blocks) and a grid-stride loop capped at 4096 blocks are not, nor a
// launch whose grid or GPU is not known.
TEST(AccessDiagnosis, AGridSmallerThanTheGpu) {
    MemoryFigures f = healthy();
    f.sm_count = 132;
    f.grid_blocks = 96;
    const std::vector<gpulab::Diagnosis> found = diagnose(f);
    ASSERT_EQ(causes(f), std::vector<std::string>{"grid-smaller-than-gpu"});
    EXPECT_NE(found[0].text.find("96 blocks"), std::string::npos) << found[0].text;
    EXPECT_NE(found[0].text.find("1056"), std::string::npos) << found[0].text;
    EXPECT_NE(found[0].text.find("36 SMs none at all"), std::string::npos) << found[0].text;
    f.grid_blocks = 500;  // every SM busy, but under half the warp slots
    EXPECT_EQ(causes(f), std::vector<std::string>{"grid-smaller-than-gpu"});
    for (const unsigned long long blocks : {528ull, 4096ull, 262144ull}) {
        f.grid_blocks = blocks;
        EXPECT_TRUE(causes(f).empty()) << blocks;
    }
    f.grid_blocks = 96, f.sm_count = 0;
    EXPECT_TRUE(causes(f).empty());
    f.sm_count = 132, f.grid_blocks = 0;
    EXPECT_TRUE(causes(f).empty());
}

}  // namespace

namespace {

// One call that starts many kernels (issue 45, item 4): a launch per plane of lab 04's 449^3 grid is 447 kernels a
// call, named launch-overhead with its count and what it costs; the references' one or two kernels a call, and a
// call of 31, are not. launches_facts says it too, after the first launches' facts.
TEST(AccessDiagnosis, ManyLaunchesACall) {
    MemoryFigures f = healthy();
    f.kernel_launches = 447;
    const std::vector<gpulab::Diagnosis> found = diagnose(f);
    ASSERT_EQ(causes(f), std::vector<std::string>{"launch-overhead"});
    EXPECT_NE(found[0].text.find("447 kernels"), std::string::npos) << found[0].text;
    EXPECT_NE(found[0].text.find("1.34 ms"), std::string::npos) << found[0].text;
    for (const std::size_t launches : {0, 1, 2, 31}) {
        f.kernel_launches = launches;
        EXPECT_TRUE(causes(f).empty()) << launches;
    }
    gpulab::RecordedLaunch plane;
    plane.grid = dim3(14, 28, 1), plane.block = dim3(32, 16, 1);
    const std::string facts = gpulab::launches_facts(std::vector<gpulab::RecordedLaunch>(447, plane));
    EXPECT_NE(facts.find("and 444 more"), std::string::npos) << facts;
    EXPECT_NE(facts.find("[launch-overhead]"), std::string::npos) << facts;
    EXPECT_EQ(gpulab::launches_facts({plane}).find("launch-overhead"), std::string::npos);
}

}  // namespace

namespace {

// Warps waiting at a barrier (issue 45, item 4), on a GPU only: named above 60% of active warp cycles, not at or
// below it (lab 06's reference waits 51% on an H100), nor where it was not measured (CPU execution mode).
TEST(AccessDiagnosis, BarrierStallsAboveSixtyPercent) {
    MemoryFigures f = healthy();
    f.barrier_stall_share = 0.82;
    const std::vector<gpulab::Diagnosis> found = diagnose(f);
    ASSERT_EQ(causes(f), std::vector<std::string>{"barrier-stalls"});
    EXPECT_NE(found[0].text.find("82%"), std::string::npos) << found[0].text;
    for (const double share : {-1.0, 0.0, 0.15, 0.36, 0.51, 0.6}) {
        f.barrier_stall_share = share;
        EXPECT_TRUE(causes(f).empty()) << share;
    }
}

}  // namespace
