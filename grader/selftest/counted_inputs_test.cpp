// What CPU execution mode's counts of a timed launch are given and give back: inputs drawn as the speed test draws
// them (launch_geometry.h BufferDraw: pages filled one at a time agree with each other), the record of the count
// for the GPU's comparison (counted_work.h), and the shared-reads figure of a count (shared_reads.h).
#include "gpulab/counted_work.h"
#include "gpulab/launch_geometry.h"
#include "gpulab/shared_reads.h"
#include "gpulab/timed_launch_count.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace {

using gpulab::BufferDraw;
using gpulab::FreshDraw;

// The whole buffer written at once, and again page by page from odd offsets in reverse order: the same bytes.
void expect_pages_agree(const BufferDraw& draw, std::size_t bytes) {
    std::vector<unsigned char> whole(bytes), pieces(bytes);
    draw.write_values(42, whole.data(), 0, bytes);
    const std::size_t piece = 4093;  // no multiple of any element size: pieces start inside elements
    for (std::size_t end = bytes; end > 0;) {
        const std::size_t begin = end > piece ? end - piece : 0;
        draw.write_values(42, pieces.data() + begin, begin, end - begin);
        end = begin;
    }
    EXPECT_EQ(whole, pieces) << draw.describe();
}

TEST(CountedInputs, PagesFilledInAnyOrderAgree) {
    expect_pages_agree(BufferDraw::floats(FreshDraw{0, 0.5f, 1.0f / (1 << 19)}), 3 * 4096 + 12);
    expect_pages_agree(BufferDraw::doubles(FreshDraw{}), 3 * 4096 + 24);
    expect_pages_agree(BufferDraw::bytes(), 3 * 4096 + 7);
}

TEST(CountedInputs, ValuesAreTheSpeedTestsDraw) {
    const FreshDraw d{0, 0.5f, 1.0f / (1 << 19)};
    std::vector<float> f(1000);
    BufferDraw::floats(d).write_values(7, f.data(), 0, f.size() * sizeof(float));
    FreshDraw seeded = d;
    seeded.seed = 7;
    bool varied = false;
    for (std::size_t i = 0; i < f.size(); ++i) {
        EXPECT_EQ(f[i], float(seeded.at(i))) << i;  // as fill_fresh writes it on the device
        EXPECT_GE(f[i], 0.5f);
        EXPECT_LT(f[i], 2.5f);
        varied = varied || f[i] != f[0];
    }
    EXPECT_TRUE(varied) << "a draw must not be a flat field";
    std::vector<std::uint8_t> b(256);
    BufferDraw::bytes().write_values(7, b.data(), 0, b.size());
    for (std::size_t i = 0; i < b.size(); ++i) EXPECT_EQ(b[i], seeded.byte_at(i)) << i;
    // Another seed, other values: each count (and each buffer) draws its own.
    std::vector<float> g(f.size());
    BufferDraw::floats(d).write_values(8, g.data(), 0, g.size() * sizeof(float));
    EXPECT_NE(f, g);
}

TEST(CountedInputs, AnOutputHoldsValuesOfItsType) {
    const BufferDraw out = BufferDraw::output_like(BufferDraw::doubles(FreshDraw{}));
    EXPECT_TRUE(out.output);
    EXPECT_EQ(out.element_bytes(), sizeof(double));
    std::vector<double> v(100);
    out.write_values(3, v.data(), 0, v.size() * sizeof(double));
    for (double x : v) EXPECT_TRUE(x >= -1.0 && x < 1.0) << x;
    EXPECT_NE(out.describe().find("output (not read)"), std::string::npos) << out.describe();
}

TEST(CountedInputs, AnUndescribedLaunchIsNotCounted) {
    gpulab::GeometryCheck launch{"TiledStep", "MatchesOracle", "8x8", "launch_step_tiled at 8x8", {256, 256},
                                 [](const std::vector<void*>&) {}};
    const gpulab::TimedLaunchCount t = gpulab::count_timed_launch(launch);
    EXPECT_FALSE(t.count.available);
    std::string why;
    if (gpulab::read_counting_available(&why))  // where counting is available, the reason is the draws
        EXPECT_NE(t.count.why.find("does not say how the speed test draws"), std::string::npos) << t.count.why;
}

TEST(CountedWork, RoundTripsThroughJson) {
    gpulab::CountedWork w;
    w.suite = "TiledStencil", w.instance = "512x512x512_double", w.call = "launch_stencil_tiled(...)";
    w.kernel = "your tiled kernel", w.element = "input", w.per = "cell";
    w.outputs = 510.0 * 510 * 510, w.element_bytes = 8, w.global_per_output = 2.37;  // shared: not counted (NaN)
    const gpulab::CountedWork back = gpulab::counted_work_of(nlohmann::json::parse(gpulab::to_json(w).dump()));
    EXPECT_EQ(back.suite, w.suite);
    EXPECT_EQ(back.instance, w.instance);
    EXPECT_EQ(back.call, w.call);
    EXPECT_EQ(back.kernel, w.kernel);
    EXPECT_EQ(back.per, w.per);
    EXPECT_DOUBLE_EQ(back.outputs, w.outputs);
    EXPECT_DOUBLE_EQ(back.element_bytes, 8);
    EXPECT_DOUBLE_EQ(back.global_per_output, 2.37);
    EXPECT_TRUE(std::isnan(back.shared_per_output));
}

// A count whose one launch ran two blocks with shared memory counted: one whole, one up to its budget.
gpulab::AccessCount two_blocks() {
    gpulab::AccessCount c;
    c.available = true;
    gpulab::CountedLaunch l;
    l.blocks = {dim3(0, 0, 0), dim3(1, 0, 0)};
    l.range_count = 2;
    l.block_counts.resize(4);
    l.block_counts[1].bytes_written = 400;  // block 0 wrote 100 floats of the output
    l.block_counts[3].bytes_written = 400;
    gpulab::SharedCount whole, capped;
    whole.counted = capped.counted = true;
    whole.bytes_written = 480, whole.bytes_read = 2000;
    capped.bytes_written = 480, capped.bytes_read = 100, capped.blocks_capped = 1;
    l.block_shared = {whole, capped};
    c.counted_launches.push_back(l);
    c.shared.counted = true;
    c.shared.bytes_written = 960, c.shared.bytes_read = 2100;
    return c;
}

TEST(SharedReads, PerValueStagedOverTheCountedPart) {
    const gpulab::SharedReads r = gpulab::shared_reads_of(two_blocks());
    EXPECT_TRUE(r.counted);
    EXPECT_EQ(r.blocks, 2u);
    EXPECT_EQ(r.blocks_capped, 1u);
    EXPECT_DOUBLE_EQ(r.reads_per_write(), 2100.0 / 960.0);
    EXPECT_TRUE(std::isnan(gpulab::SharedReads{}.reads_per_write()));
}

TEST(SharedReads, PerOutputOnlyFromBlocksCountedWhole) {
    // Block 0 alone: 2000 shared bytes read for 400 bytes of output, 5 elements per element.
    EXPECT_DOUBLE_EQ(gpulab::shared_elements_per_output(two_blocks(), 1), 5.0);
    gpulab::AccessCount none = two_blocks();
    none.counted_launches[0].block_shared[0].blocks_capped = 1;
    EXPECT_TRUE(std::isnan(gpulab::shared_elements_per_output(none, 1)));
}

}  // namespace
