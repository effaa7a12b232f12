// The source line behind a cause (cause_lines.h): instructions of this test binary (built with line tables, as a
// CPU execution mode solution is) stand for a kernel's, so the lines named can be checked against __LINE__.
#include "gpulab/cause_lines.h"
#include "gpulab/source_lines.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace {

volatile int g_sink = 0;
// Two "instructions" on lines of their own: the address of each function is its first line's.
__attribute__((noinline)) void walks_a_column() { g_sink = 1; }
const int kWalksAColumnLine = __LINE__ - 1;
__attribute__((noinline)) void reads_a_row() { g_sink = 2; }
const int kReadsARowLine = __LINE__ - 1;

std::uintptr_t address_of(void (*f)()) { return reinterpret_cast<std::uintptr_t>(f); }

std::string where(int line) { return "cause_lines_test.cpp:" + std::to_string(line) + "  "; }

TEST(CauseLines, TheLineWhoseLanesFetchASectorEachIsNamedWithItsOwnFigure) {
    const std::vector<gpulab::SourceLine> lines = gpulab::source_lines_of({address_of(walks_a_column)});
    ASSERT_EQ(lines.size(), 1u);
    if (lines[0].file.empty()) GTEST_SKIP() << "no line table or no addr2line here";
    EXPECT_EQ(lines[0].line, kWalksAColumnLine);
    EXPECT_NE(lines[0].text.find("walks_a_column"), std::string::npos) << lines[0].text;

    gpulab::InstructionCount column, row;
    column.ip = address_of(walks_a_column);
    column.load_requests = 100, column.load_sectors = 3200, column.load_lanes = 3200;  // 32 sectors a request
    row.ip = address_of(reads_a_row);
    row.load_requests = 400, row.load_sectors = 1600, row.load_lanes = 12800;  // coalesced: 4 a request, more in all
    std::vector<gpulab::Diagnosis> d{{"uncoalesced-loads", "…", {}}, {"small-blocks", "…", {}}};
    EXPECT_EQ(gpulab::name_cause_lines(d, {row, column}), "");
    ASSERT_EQ(d[0].lines.size(), 1u);  // the coalesced row holds none of the excess sectors
    EXPECT_EQ(d[0].lines[0].quoted.rfind(where(kWalksAColumnLine), 0), 0u) << d[0].lines[0].text();
    EXPECT_NE(d[0].lines[0].figure.find("32.0 sectors for a warp's 32 loads (100% of the kernel's uncoalesced load sectors)"),
              std::string::npos)
        << d[0].lines[0].text();
    EXPECT_TRUE(d[1].lines.empty());  // a block size is no one line's
}

TEST(CauseLines, BankConflictsGoToTheLinesHoldingMostOfThemAtMostTwo) {
    gpulab::InstructionCount a, b;
    a.ip = address_of(walks_a_column);
    a.shared_load_requests = 10, a.shared_load_conflicts = 310;  // 31 extra turns a request
    b.ip = address_of(reads_a_row);
    b.shared_store_requests = 10, b.shared_store_conflicts = 10;  // 3% of the conflicts: under the least share
    std::vector<gpulab::Diagnosis> d{{"bank-conflicts", "…", {}}};
    gpulab::name_cause_lines(d, {a, b});
    if (d[0].lines.empty()) GTEST_SKIP() << "no line table or no addr2line here";
    ASSERT_EQ(d[0].lines.size(), 1u);
    EXPECT_EQ(d[0].lines[0].quoted.rfind(where(kWalksAColumnLine), 0), 0u) << d[0].lines[0].text();
    EXPECT_NE(d[0].lines[0].figure.find("31.0 extra turns per shared-memory request (97% of the kernel's bank conflicts)"),
              std::string::npos)
        << d[0].lines[0].text();
}

// The GPU's per-instruction counters come with their lines (instruction_counters.h) and count the lanes a request ran,
// not which request had idle ones: its divergence is a share of idle lanes.
TEST(CauseLines, TheGpusCountsAreNamedByTheLinesTheyCameWith) {
    gpulab::InstructionCount odd_lanes, full;
    odd_lanes.load_requests = 100, odd_lanes.load_lanes = 1600, odd_lanes.load_sectors = 400;
    odd_lanes.idle_requests = 1600;  // half of 32 * 100 lanes idle
    full.store_requests = 100, full.store_lanes = 3200, full.store_sectors = 400;
    std::vector<gpulab::Diagnosis> d{{"divergent-warps", "…", {}}, {"uncoalesced-loads", "…", {}}};
    const std::string why = gpulab::name_cause_lines(d, {odd_lanes, full}, {"heat.cu:12  a = in[i];", "heat.cu:14  out[i] = a;"},
                                                     "", gpulab::LaneCount::average);
    EXPECT_EQ(why, "no line holds 10% of it");  // 400 sectors for 1600 lanes: half a sector a lane, coalesced
    ASSERT_EQ(d[0].lines.size(), 1u);
    EXPECT_EQ(d[0].lines[0].quoted, "heat.cu:12  a = in[i];");
    EXPECT_EQ(d[0].lines[0].figure, "50% of its requests' lanes idle (100% of the kernel's idle lanes)");
    EXPECT_TRUE(d[1].lines.empty());
    // A line the GPU build's line table does not know is left out, and the reason given is the GPU's.
    std::vector<gpulab::Diagnosis> unknown{{"divergent-warps", "…", {}}};
    EXPECT_EQ(gpulab::name_cause_lines(unknown, {odd_lanes}, {""}, "no line table", gpulab::LaneCount::average),
              "no line table");
    EXPECT_TRUE(unknown[0].lines.empty());
    // No instruction counted at all: the GPU's reason, not a bare "none".
    EXPECT_EQ(gpulab::name_cause_lines(unknown, {}, {}, "the counters gave no counts", gpulab::LaneCount::average),
              "the counters gave no counts");
}

TEST(CauseLines, AnAddressOutsideEveryLibraryIsNotGuessed) {
    std::string why;
    const std::vector<gpulab::SourceLine> lines = gpulab::source_lines_of({std::uintptr_t(16)}, &why);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_TRUE(lines[0].file.empty());
    EXPECT_NE(why.find("outside every loaded library"), std::string::npos) << why;
    (void)kReadsARowLine;
}

}  // namespace
