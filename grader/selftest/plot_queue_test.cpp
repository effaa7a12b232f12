// gpulab-grade's plot queue (grader/runner/plot_queue.h): a grader process that asks for a picture with
// GPULAB_PLOT_QUEUE set goes on at once, the queue's worker draws it, and finish() says what was drawn and
// why anything was not: a failed script, or a request for a file outside the lab's folder (refused). A shell
// script stands in for Python, so no matplotlib is needed.
#include "plot_queue.h"

#include "gpulab/plot.h"

#include "stand_in_python.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using gpulab::runner::PlotQueue;
using gpulab::runner::QueuedPicture;
using Clock = std::chrono::steady_clock;

class PlotQueueTest : public testing::Test {
protected:
    fs::path dir = fs::temp_directory_path() / ("gpulab-plot-queue-" + std::to_string(::getpid()));
    void SetUp() override { fs::create_directories(dir / "artifacts"); }
    void TearDown() override {
        ::unsetenv("GPULAB_PYTHON");
        ::unsetenv("GPULAB_PLOT_QUEUE");
        fs::remove_all(dir);
    }
    void fake_python(const std::string& body) { gpulab_selftest::stand_in_python(dir, body); }
};

TEST_F(PlotQueueTest, APictureIsDrawnByTheWorkerWhileTheTestGoesOn) {
    fake_python("sleep 1; echo picture > \"$5\"");
    PlotQueue queue(dir.string());
    ASSERT_FALSE(queue.folder().empty());
    ::setenv("GPULAB_PLOT_QUEUE", queue.folder().c_str(), 1);
    const fs::path png = dir / "artifacts" / "roofline.png";
    const auto asked = Clock::now();
    const gpulab::PlotOutcome plot = gpulab::draw_plot("roofline", (dir / "artifacts" / "roofline.json").string(), {"--out", png.string()});
    EXPECT_LT(Clock::now() - asked, std::chrono::milliseconds(500)) << "the test waited for the picture";
    EXPECT_TRUE(plot.queued);
    EXPECT_FALSE(plot.drawn);
    EXPECT_TRUE(plot.drawn_or_queued());
    const std::vector<QueuedPicture> pictures = queue.finish();
    ASSERT_EQ(pictures.size(), 1u);
    EXPECT_TRUE(pictures[0].drawn) << pictures[0].skipped_because;
    EXPECT_EQ(pictures[0].picture, png.string());
    EXPECT_TRUE(fs::exists(png));
    EXPECT_FALSE(fs::exists(queue.folder())) << "the queue's folder is left behind";
}

// A lab's last two pictures are asked for together as its last tests end: drawn side by side, not one after the
// other. Each stand-in picture leaves a mark while it is being drawn and writes how many marks it saw.
TEST_F(PlotQueueTest, TwoPicturesAskedTogetherAreDrawnSideBySide) {
    fake_python("touch \"$5.busy\"; sleep 1; ls \"$(dirname \"$5\")\" | grep -c busy > \"$5\"; sleep 0.5; rm \"$5.busy\"");
    PlotQueue queue(dir.string());
    ::setenv("GPULAB_PLOT_QUEUE", queue.folder().c_str(), 1);
    const fs::path roofline = dir / "artifacts" / "roofline.png", profile = dir / "artifacts" / "gpu_profile.png";
    gpulab::draw_plot("roofline", (dir / "artifacts" / "roofline.json").string(), {"--out", roofline.string()});
    gpulab::draw_plot("gpu-profile", (dir / "artifacts" / "gpu_profile.json").string(), {"--out", profile.string()});
    const std::vector<QueuedPicture> pictures = queue.finish();
    ASSERT_EQ(pictures.size(), 2u);
    EXPECT_EQ(pictures[0].picture, roofline.string()) << "not in the order asked for";
    EXPECT_EQ(pictures[1].picture, profile.string());
    for (const QueuedPicture& p : pictures) EXPECT_TRUE(p.drawn) << p.skipped_because;
    int most_seen = 0;
    for (const fs::path& png : {roofline, profile}) {
        int seen = 0;
        std::ifstream(png) >> seen;
        most_seen = std::max(most_seen, seen);
    }
    EXPECT_EQ(most_seen, 2) << "the two pictures were drawn one after the other";
}

TEST_F(PlotQueueTest, AFailedScriptIsNamedWithItsReason) {
    fake_python("echo 'no frames in the data'; exit 1");
    PlotQueue queue(dir.string());
    ::setenv("GPULAB_PLOT_QUEUE", queue.folder().c_str(), 1);
    gpulab::draw_plot("heat-maps", (dir / "artifacts" / "frames.json").string());
    const std::vector<QueuedPicture> pictures = queue.finish();
    ASSERT_EQ(pictures.size(), 1u);
    EXPECT_FALSE(pictures[0].drawn);
    EXPECT_NE(pictures[0].skipped_because.find("exit status 1): no frames in the data"), std::string::npos)
        << pictures[0].skipped_because;
}

// The requests come from the process that runs the student's code: one may not draw over a file elsewhere.
TEST_F(PlotQueueTest, APictureOutsideTheLabsFolderIsRefused) {
    fake_python("echo picture > \"$5\"");
    PlotQueue queue((dir / "artifacts").string());
    ::setenv("GPULAB_PLOT_QUEUE", queue.folder().c_str(), 1);
    const fs::path elsewhere = dir / "elsewhere.png", sneaky = dir / "artifacts" / ".." / "sneaky.png";
    gpulab::draw_plot("roofline", (dir / "artifacts" / "roofline.json").string(), {"--out", elsewhere.string()});
    gpulab::draw_plot("roofline", (dir / "artifacts" / "roofline.json").string(), {"--out", sneaky.string()});
    const std::vector<QueuedPicture> pictures = queue.finish();
    ASSERT_EQ(pictures.size(), 2u);
    for (const QueuedPicture& p : pictures) {
        EXPECT_FALSE(p.drawn) << p.picture;
        EXPECT_NE(p.skipped_because.find("refused"), std::string::npos) << p.skipped_because;
    }
    EXPECT_FALSE(fs::exists(elsewhere));
    EXPECT_FALSE(fs::exists(dir / "sneaky.png"));
}

TEST_F(PlotQueueTest, WithoutAQueueThePictureIsDrawnInTheTest) {
    fake_python("echo picture > \"$5\"");
    const fs::path png = dir / "artifacts" / "roofline.png";
    const gpulab::PlotOutcome plot = gpulab::draw_plot("roofline", (dir / "artifacts" / "roofline.json").string(), {"--out", png.string()});
    EXPECT_TRUE(plot.drawn) << plot.skipped_because;
    EXPECT_FALSE(plot.queued);
    EXPECT_TRUE(fs::exists(png));
}

}  // namespace
