// 8-bit images in and out of files, for labs that process photos (plots are drawn by plot.h). Reading goes
// through stb_image, writing through stb_image_write (Debian's libstb-dev); image.cpp is the one
// translation unit that compiles their implementation.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpulab {

struct Image {
    int width = 0;
    int height = 0;
    int channels = 0;  // 1 (grey), 3 (RGB) or 4 (RGBA)
    std::vector<std::uint8_t> pixels;  // row-major, channels interleaved
    std::size_t size() const { return std::size_t(width) * height * channels; }
};

// A file that cannot be used as an image: the message names the file and what is wrong with it.
class ImageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Loads a PNG, JPEG, BMP, ... keeping its channel count. Throws ImageError for a missing file, a
// file that is not an image, a truncated one, or one with no pixels.
Image load_image(const std::string& path);

// Writes a PNG (parent folders are created). Throws ImageError when it cannot.
void save_png(const std::string& path, const Image& image);

// The folder where a test may leave files for a person to open (images, CSVs): $GPULAB_ARTIFACT_DIR,
// which gpulab-grade points into its grade folder, else the current directory. Created on demand.
std::string artifact_dir();

}  // namespace gpulab
