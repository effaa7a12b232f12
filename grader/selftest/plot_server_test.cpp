// gpulab/plot.h's PlotServer: one Python draws picture after picture (`gpulab_plot.py --serve`), a picture's bad data
// costs only that picture, and a server that hangs, dies or cannot import matplotlib leaves each picture an outcome
// that says why, as draw_plot's own would. Shell scripts stand in for Python where the test is about the server's
// ends, not its drawing.
#include "gpulab/plot.h"

#include "stand_in_python.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;

const std::string kPlotSamples = GPULAB_PLOT_SAMPLES;

class PlotServerTest : public testing::Test {
protected:
    fs::path dir = fs::temp_directory_path() / ("gpulab-plot-server-" + std::to_string(::getpid()));
    void SetUp() override { fs::create_directories(dir); }
    void TearDown() override {
        ::unsetenv("GPULAB_PYTHON");
        fs::remove_all(dir);
    }
    void fake_python(const std::string& body) { gpulab_selftest::stand_in_python(dir, body); }
    std::string png(const std::string& name) const { return (dir / (name + ".png")).string(); }
};

bool is_png_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    char head[8] = {};
    in.read(head, 8);
    return in.gcount() == 8 && std::string(head, 8) == std::string("\x89PNG\r\n\x1a\n", 8);
}

// The real script: two kinds of picture, a request whose data is missing (refused with draw_plot's reason), and a
// picture after it (the server goes on).
TEST_F(PlotServerTest, DrawsPictureAfterPictureAndABadOneCostsOnlyItself) {
    gpulab::PlotServer server;
    const gpulab::PlotOutcome roofline = server.draw("roofline", kPlotSamples + "/roofline.json", {"--out", png("roofline")});
    if (!roofline.drawn && roofline.skipped_because.find("matplotlib is not installed") != std::string::npos)
        GTEST_SKIP() << "cannot draw here: " << roofline.skipped_because;
    ASSERT_TRUE(roofline.drawn) << roofline.skipped_because << "\n" << roofline.output;
    EXPECT_TRUE(is_png_file(png("roofline")));
    EXPECT_NE(roofline.output.find("wrote " + png("roofline")), std::string::npos) << roofline.output;

    const gpulab::PlotOutcome missing = server.draw("matmul-study", (dir / "absent.csv").string());
    EXPECT_FALSE(missing.drawn);
    EXPECT_NE(missing.skipped_because.find("exit status 1): gpulab_plot: error: cannot read " + (dir / "absent.csv").string()),
              std::string::npos)
        << missing.skipped_because;

    const gpulab::PlotOutcome wrong = server.draw("no-such-kind", (dir / "absent.csv").string());
    EXPECT_FALSE(wrong.drawn);
    EXPECT_NE(wrong.skipped_because.find("exit status 2)"), std::string::npos) << wrong.skipped_because;

    const gpulab::PlotOutcome profile = server.draw("gpu-profile", kPlotSamples + "/gpu_profile_02.json", {"--out", png("profile")});
    ASSERT_TRUE(profile.drawn) << profile.skipped_because << "\n" << profile.output;
    EXPECT_TRUE(is_png_file(png("profile")));
}

// A picture past its time limit is stopped with its server; the next picture gets a server of its own.
TEST_F(PlotServerTest, APictureThatHangsIsStoppedAndTheNextIsDrawn) {
    fake_python(R"(if [ "$2" = --serve ]; then
  echo '{"ready": true}'
  while read request; do
    case "$request" in *hangs*) sleep 60 ;; *) echo '{"exit": 0, "output": "wrote it"}' ;; esac
  done
  exit 0
fi
exit 1)");
    gpulab::PlotServer server;
    const gpulab::PlotOutcome hung = server.draw("roofline", "hangs.json", {}, /*time_limit_s=*/1);
    EXPECT_FALSE(hung.drawn);
    EXPECT_EQ(hung.skipped_because, "the plotting script ran past its 1 s limit and was stopped");
    const gpulab::PlotOutcome next = server.draw("roofline", "fine.json", {}, 5);
    EXPECT_TRUE(next.drawn) << next.skipped_because;
    EXPECT_EQ(next.output, "wrote it");
}

// A server that dies on a picture: the picture is drawn again in a Python of its own (draw_plot), whose end is
// the one reported.
TEST_F(PlotServerTest, AServerThatDiesOnAPictureLeavesItToAPythonOfItsOwn) {
    fake_python(R"(if [ "$2" = --serve ]; then
  echo '{"ready": true}'
  read request
  kill -SEGV $$
fi
echo "wrote $5" > "$5"; echo "wrote $5")");
    gpulab::PlotServer server;
    const gpulab::PlotOutcome drawn = server.draw("roofline", "data.json", {"--out", png("alone")}, 5);
    EXPECT_TRUE(drawn.drawn) << drawn.skipped_because;
    EXPECT_TRUE(fs::exists(png("alone")));
}

// A Python without matplotlib exits before it is ready: each picture then says so, in draw_plot's words.
TEST_F(PlotServerTest, WithoutMatplotlibEachPictureSaysSo) {
    if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3 to run without its packages";
    fake_python("exec /usr/bin/python3 -S \"$@\"");
    gpulab::PlotServer server;
    for (int picture = 0; picture < 2; ++picture) {
        const gpulab::PlotOutcome plot = server.draw("roofline", kPlotSamples + "/roofline.json", {"--out", png("never")}, 20);
        EXPECT_FALSE(plot.drawn);
        EXPECT_EQ(plot.skipped_because.rfind("matplotlib is not installed", 0), 0u) << plot.skipped_because;
    }
    EXPECT_FALSE(fs::exists(png("never")));
}

}  // namespace
