#include "gpulab/image.h"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image.h>
#include <stb_image_write.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

namespace gpulab {

Image load_image(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code error;
    if (!fs::exists(path, error)) throw ImageError(path + ": no such file");
    if (fs::is_directory(path, error)) throw ImageError(path + ": is a folder, not an image file");
    if (fs::file_size(path, error) == 0) throw ImageError(path + ": the file is empty");

    Image image;
    std::unique_ptr<stbi_uc, void (*)(void*)> data(
        stbi_load(path.c_str(), &image.width, &image.height, &image.channels, 0), stbi_image_free);
    if (!data) {
        throw ImageError(path + ": cannot be read as an image (" + stbi_failure_reason() +
                         "); is it a PNG or JPEG, and complete?");
    }
    if (image.width <= 0 || image.height <= 0) throw ImageError(path + ": the image has no pixels");
    if (image.channels == 2) {
        // Grey + alpha: keep the grey so every lab sees 1, 3 or 4 channels.
        std::vector<std::uint8_t> grey(std::size_t(image.width) * image.height);
        for (std::size_t i = 0; i < grey.size(); ++i) grey[i] = data.get()[2 * i];
        image.channels = 1;
        image.pixels = std::move(grey);
        return image;
    }
    image.pixels.assign(data.get(), data.get() + image.size());
    return image;
}

void save_png(const std::string& path, const Image& image) {
    if (image.width <= 0 || image.height <= 0 || image.pixels.size() != image.size())
        throw ImageError(path + ": refusing to write an image with no pixels or the wrong number of bytes");
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    if (!stbi_write_png(path.c_str(), image.width, image.height, image.channels, image.pixels.data(),
                        image.width * image.channels))
        throw ImageError(path + ": could not write the PNG (is the folder writable?)");
}

std::string artifact_dir() {
    const char* env = std::getenv("GPULAB_ARTIFACT_DIR");
    const std::string dir = env && *env ? env : ".";
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace gpulab
