// Bad image files get a message that names the file and the problem; good ones round-trip.
#include "gpulab/image.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

class ImageFiles : public testing::Test {
protected:
    fs::path dir = fs::temp_directory_path() / ("gpulab-image-" + std::to_string(::getpid()));
    void SetUp() override { fs::create_directories(dir); }
    void TearDown() override { fs::remove_all(dir); }
    std::string write(const std::string& name, const std::string& bytes) {
        const auto path = (dir / name).string();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }
    static std::string load_error(const std::string& path) {
        try {
            gpulab::load_image(path);
        } catch (const gpulab::ImageError& e) {
            return e.what();
        }
        return "";
    }
};

gpulab::Image checkerboard(int w, int h, int c) {
    gpulab::Image image{w, h, c, {}};
    for (int i = 0; i < w * h * c; ++i) image.pixels.push_back(std::uint8_t((i * 37) % 251));
    return image;
}

TEST_F(ImageFiles, RoundTripsEveryChannelCount) {
    for (int c : {1, 3, 4}) {
        const auto path = (dir / ("round" + std::to_string(c) + ".png")).string();
        const auto original = checkerboard(7, 5, c);
        gpulab::save_png(path, original);
        const auto loaded = gpulab::load_image(path);
        EXPECT_EQ(loaded.width, 7);
        EXPECT_EQ(loaded.height, 5);
        EXPECT_EQ(loaded.channels, c);
        EXPECT_EQ(loaded.pixels, original.pixels);
    }
}

TEST_F(ImageFiles, MissingFileIsNamed) {
    const auto message = load_error((dir / "nope.png").string());
    EXPECT_NE(message.find("nope.png: no such file"), std::string::npos) << message;
}

TEST_F(ImageFiles, EmptyFileIsNamed) {
    const auto message = load_error(write("empty.png", ""));
    EXPECT_NE(message.find("empty.png: the file is empty"), std::string::npos) << message;
}

TEST_F(ImageFiles, TextFileIsNotAnImage) {
    const auto message = load_error(write("notes.png", "these are my notes, not a picture\n"));
    EXPECT_NE(message.find("notes.png: cannot be read as an image"), std::string::npos) << message;
}

TEST_F(ImageFiles, TruncatedPngIsRejected) {
    const auto path = (dir / "whole.png").string();
    gpulab::save_png(path, checkerboard(64, 64, 3));
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto message = load_error(write("cut.png", bytes.substr(0, bytes.size() / 2)));
    EXPECT_NE(message.find("cut.png"), std::string::npos) << message;
}

TEST_F(ImageFiles, FolderIsNotAnImage) {
    const auto message = load_error(dir.string());
    EXPECT_NE(message.find("is a folder"), std::string::npos) << message;
}

}  // namespace
