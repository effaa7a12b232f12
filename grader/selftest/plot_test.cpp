// Every kind of picture is drawn from small sample data (grader/selftest/plot_samples/, written in
// the formats the graders write), and a missing Python, a Python without matplotlib, bad data and a
// hung script each give a plot that was not drawn and says why, never an exception.
#include "gpulab/plot.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

namespace {

namespace fs = std::filesystem;

const std::string kSamples = GPULAB_PLOT_SAMPLES;

bool is_png(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    char head[8] = {};
    in.read(head, 8);
    return in.gcount() == 8 && std::string(head, 8) == std::string("\x89PNG\r\n\x1a\n", 8);
}

// Sets an environment variable for one test and puts back what was there.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (old_) ::setenv(name_, old_->c_str(), 1);
        else ::unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

class Plots : public testing::Test {
protected:
    fs::path dir = fs::temp_directory_path() / ("gpulab-plot-" + std::to_string(::getpid()));
    void SetUp() override { fs::create_directories(dir); }
    void TearDown() override { fs::remove_all(dir); }

    // A shell script standing in for Python.
    std::string fake_python(const std::string& name, const std::string& body) {
        const fs::path path = dir / name;
        std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
        ::chmod(path.c_str(), 0755);
        return path.string();
    }
};

// Draws, and skips the test (saying why) where this machine cannot draw at all.
#define DRAW_OR_SKIP(outcome, ...)                                                                     \
    const gpulab::PlotOutcome outcome = gpulab::draw_plot(__VA_ARGS__);                                \
    if (!outcome.drawn && (outcome.skipped_because.rfind("matplotlib is not installed", 0) == 0 ||   \
                           outcome.skipped_because.rfind("no Python 3 found", 0) == 0))              \
    GTEST_SKIP() << "cannot draw here: " << outcome.skipped_because

TEST_F(Plots, Heat2dScaling) {
    const fs::path png = dir / "scaling.png";
    DRAW_OR_SKIP(plot, "heat2d-scaling", kSamples + "/heat2d_scaling.csv", {"--out", png.string(), "--title", "a GPU"});
    ASSERT_TRUE(plot.drawn) << plot.skipped_because << "\n" << plot.output;
    EXPECT_TRUE(is_png(png)) << png;
    EXPECT_NE(plot.output.find("wrote " + png.string()), std::string::npos) << plot.output;
}

TEST_F(Plots, MatmulStudy) {
    const fs::path png = dir / "matmul.png";
    DRAW_OR_SKIP(plot, "matmul-study", kSamples + "/matmul_study.csv", {"--out", png.string(), "--title", "a GPU"});
    ASSERT_TRUE(plot.drawn) << plot.skipped_because << "\n" << plot.output;
    EXPECT_TRUE(is_png(png)) << png;
}

// A lab's roofline: memory and compute roofs, points by role, and a kernel left off the chart with why.
TEST_F(Plots, Roofline) {
    const fs::path png = dir / "roofline.png";
    DRAW_OR_SKIP(plot, "roofline", kSamples + "/roofline.json", {"--out", png.string()});
    ASSERT_TRUE(plot.drawn) << plot.skipped_because << "\n" << plot.output;
    EXPECT_TRUE(is_png(png)) << png;
}

// A roofline without a measured copy has no memory roof to draw: refused, and the reason names the field.
TEST_F(Plots, RooflineWithoutCopyIsRefused) {
    std::ofstream(dir / "roofline.json") << R"({"roofs": {"copy_gbs": 0, "fp32_gflops": 1000}, "points": []})";
    DRAW_OR_SKIP(plot, "roofline", (dir / "roofline.json").string());
    EXPECT_FALSE(plot.drawn);
    EXPECT_NE(plot.skipped_because.find("copy bandwidth must be a positive number"), std::string::npos)
        << plot.skipped_because;
}

// A lab's GPU profile (Report.GpuProfile's gpu_profile.json): lab 02's two timed launches, yours beside the
// reference's, cause by cause; lab 01's one launch; and launches that were not profiled, listed with why.
TEST_F(Plots, GpuProfile) {
    for (const char* lab : {"01", "02"}) {
        const fs::path png = dir / ("gpu_profile_" + std::string(lab) + ".png");
        DRAW_OR_SKIP(plot, "gpu-profile", kSamples + "/gpu_profile_" + lab + ".json", {"--out", png.string()});
        ASSERT_TRUE(plot.drawn) << plot.skipped_because << "\n" << plot.output;
        EXPECT_TRUE(is_png(png)) << png;
    }
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(kSamples + "/gpu_profile_02.json"));
    doc["rows"][1]["achieved_occupancy"] = nullptr;  // a counter that was not read: no bar, "n/a"
    doc["rows"].push_back({{"role", "yours"}, {"suite", "Transpose"}, {"instance", "4096x4096"},
                           {"call", "launch_transpose at 4096x4096"}, {"available", false},
                           {"why", "the launch stored nothing to global memory"}});
    std::ofstream(dir / "partial.json") << doc.dump();
    DRAW_OR_SKIP(partial, "gpu-profile", (dir / "partial.json").string());
    ASSERT_TRUE(partial.drawn) << partial.skipped_because << "\n" << partial.output;
    EXPECT_TRUE(is_png(dir / "partial.png"));
}

// The expert's kernel as a third bar beside yours and the reference's in every panel; where the build has none, the
// caption says why (expert_why), and a reason that is not a sentence is refused.
TEST_F(Plots, GpuProfileWithTheExpert) {
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(kSamples + "/gpu_profile_01.json"));
    nlohmann::json expert = doc["rows"][1];
    expert["role"] = "expert", expert["call"] = "expert::launch_rod_step at M = 67108864";
    expert["kernels"] = "rod_step_expert", expert["achieved_occupancy"] = 0.93;
    doc["rows"].push_back(expert);
    doc["expert_why"] = "";
    std::ofstream(dir / "expert.json") << doc.dump();
    DRAW_OR_SKIP(three, "gpu-profile", (dir / "expert.json").string());
    ASSERT_TRUE(three.drawn) << three.skipped_because << "\n" << three.output;
    EXPECT_TRUE(is_png(dir / "expert.png"));

    doc["rows"].erase(2);
    doc["expert_why"] = "no expert kernel in this build: the expert kernels are the course staff's, and a student "
                        "release has none";
    std::ofstream(dir / "no_expert.json") << doc.dump();
    DRAW_OR_SKIP(two, "gpu-profile", (dir / "no_expert.json").string());
    ASSERT_TRUE(two.drawn) << two.skipped_because << "\n" << two.output;
    EXPECT_TRUE(is_png(dir / "no_expert.png"));

    doc["expert_why"] = 3;
    std::ofstream(dir / "bad_expert.json") << doc.dump();
    DRAW_OR_SKIP(bad, "gpu-profile", (dir / "bad_expert.json").string());
    EXPECT_FALSE(bad.drawn);
    EXPECT_NE(bad.skipped_because.find("'expert_why' must be a sentence"), std::string::npos) << bad.skipped_because;
}

// Figures that cannot be right are refused, the reason naming the row and the field: a fraction above 1, a
// number that is text, a negative count, no rows at all.
TEST_F(Plots, GpuProfileWithBadFiguresIsRefused) {
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(kSamples + "/gpu_profile_01.json"));
    struct Case {
        int row;  // -1: no rows at all
        const char* key;
        nlohmann::json value;
        std::string reason;
    };
    const Case cases[] = {
        {0, "load_sector_use", 14.1, "row 1 (yours): 'load_sector_use' is a fraction of 1, not 14.1"},
        {1, "achieved_occupancy", "high", "row 2 (reference): 'achieved_occupancy' must be a number or null"},
        {0, "local_bytes_per_thread", -8, "row 1 (yours): 'local_bytes_per_thread' is negative"},
        {-1, "", nullptr, "'rows' must be a list of at least one profiled launch"},
    };
    for (const Case& c : cases) {
        const std::string& reason = c.reason;
        nlohmann::json bad = doc;
        if (c.row < 0) bad["rows"] = nlohmann::json::array();
        else bad["rows"][c.row][c.key] = c.value;
        std::ofstream(dir / "bad.json", std::ios::trunc) << bad.dump();
        DRAW_OR_SKIP(plot, "gpu-profile", (dir / "bad.json").string());
        EXPECT_FALSE(plot.drawn) << reason;
        EXPECT_NE(plot.skipped_because.find(reason), std::string::npos) << plot.skipped_because;
        EXPECT_FALSE(fs::exists(dir / "bad.png"));
    }
}

// Without --out the picture goes next to its CSV.
TEST_F(Plots, CsvPictureGoesNextToItsData) {
    fs::copy_file(kSamples + "/matmul_study.csv", dir / "study.csv");
    DRAW_OR_SKIP(plot, "matmul-study", (dir / "study.csv").string());
    ASSERT_TRUE(plot.drawn) << plot.skipped_because << "\n" << plot.output;
    EXPECT_TRUE(is_png(dir / "study.png"));
}

// Lab 02's snapshot format: a frame, a frame with NaN cells, and an expected frame.
TEST_F(Plots, HeatMaps) {
    const int nx = 12, ny = 7;
    nlohmann::json frames = nlohmann::json::array();
    for (int frame = 0; frame < 3; ++frame) {
        nlohmann::json rows = nlohmann::json::array();
        for (int j = 0; j < ny; ++j) {
            nlohmann::json row = nlohmann::json::array();
            for (int i = 0; i < nx; ++i)
                if (frame == 1 && i == 3 && j == 2) row.push_back(nullptr);
                else row.push_back(std::exp(-0.1 * ((i - 6) * (i - 6) + (j - 3) * (j - 3)) / (1 + frame)));
            rows.push_back(row);
        }
        frames.push_back({{"t", 0.5 * frame},
                          {"expected", frame == 2},
                          {"png", (dir / ("frame" + std::to_string(frame) + ".png")).string()},
                          {"values", rows}});
    }
    const fs::path data = dir / "frames.json";
    std::ofstream(data) << nlohmann::json{{"nx", nx}, {"ny", ny}, {"range", {0.0, 1.0}}, {"title", "sample"},
                                          {"x_label", "x (cell index i)"}, {"y_label", "y (cell index j)"},
                                          {"value_label", "temperature"}, {"frames", frames}}
                                  .dump();
    DRAW_OR_SKIP(plot, "heat-maps", data.string());
    ASSERT_TRUE(plot.drawn) << plot.skipped_because << "\n" << plot.output;
    for (int frame = 0; frame < 3; ++frame) {
        const fs::path png = dir / ("frame" + std::to_string(frame) + ".png");
        EXPECT_TRUE(is_png(png)) << png;
    }
}

TEST_F(Plots, MissingColumnIsNamed) {
    std::ofstream(dir / "bad.csv") << "size,naive_ms_per_step\n16,0.1\n";
    DRAW_OR_SKIP(plot, "heat2d-scaling", (dir / "bad.csv").string());
    EXPECT_FALSE(plot.drawn);
    EXPECT_NE(plot.skipped_because.find("exit status 1"), std::string::npos) << plot.skipped_because;
    EXPECT_NE(plot.skipped_because.find("no column 'M'"), std::string::npos) << plot.skipped_because;
}

TEST_F(Plots, MissingFileIsNamed) {
    DRAW_OR_SKIP(plot, "matmul-study", (dir / "absent.csv").string());
    EXPECT_FALSE(plot.drawn);
    EXPECT_NE(plot.skipped_because.find("cannot read " + (dir / "absent.csv").string()), std::string::npos)
        << plot.skipped_because;
}

TEST_F(Plots, MissingPythonIsSkippedNotThrown) {
    const ScopedEnv python("GPULAB_PYTHON", "/nonexistent/python3");
    gpulab::PlotOutcome plot;
    EXPECT_NO_THROW(plot = gpulab::draw_plot("heat2d-scaling", kSamples + "/heat2d_scaling.csv",
                                             {"--out", (dir / "never.png").string()}));
    EXPECT_FALSE(plot.drawn);
    EXPECT_NE(plot.skipped_because.find("GPULAB_PYTHON=/nonexistent/python3 cannot be run"), std::string::npos)
        << plot.skipped_because;
    EXPECT_FALSE(fs::exists(dir / "never.png"));
}

// A Python without matplotlib (here: Debian's, without its site packages).
TEST_F(Plots, PythonWithoutMatplotlibIsSkipped) {
    if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3 to run without its packages";
    const ScopedEnv python("GPULAB_PYTHON", fake_python("bare-python", "exec /usr/bin/python3 -S \"$@\""));
    const gpulab::PlotOutcome plot = gpulab::draw_plot("heat2d-scaling", kSamples + "/heat2d_scaling.csv",
                                                       {"--out", (dir / "never.png").string()});
    EXPECT_FALSE(plot.drawn);
    EXPECT_EQ(plot.skipped_because.rfind("matplotlib is not installed", 0), 0u) << plot.skipped_because;
    EXPECT_NE(plot.skipped_because.find("sudo apt-get install python3-matplotlib"), std::string::npos);
}

TEST_F(Plots, HungScriptIsStopped) {
    const ScopedEnv python("GPULAB_PYTHON", fake_python("hung-python", "echo starting; sleep 60"));
    const auto start = std::chrono::steady_clock::now();
    const gpulab::PlotOutcome plot = gpulab::draw_plot("heat-maps", "frames.json", {}, /*time_limit_s=*/1);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_FALSE(plot.drawn);
    EXPECT_NE(plot.skipped_because.find("ran past its 1 s limit"), std::string::npos) << plot.skipped_because;
    EXPECT_NE(plot.output.find("starting"), std::string::npos) << plot.output;
}

TEST_F(Plots, CrashedScriptIsReported) {
    const ScopedEnv python("GPULAB_PYTHON", fake_python("crashing-python", "kill -SEGV $$"));
    const gpulab::PlotOutcome plot = gpulab::draw_plot("heat-maps", "frames.json");
    EXPECT_FALSE(plot.drawn);
    EXPECT_NE(plot.skipped_because.find("killed by signal 11"), std::string::npos) << plot.skipped_because;
}

}  // namespace
