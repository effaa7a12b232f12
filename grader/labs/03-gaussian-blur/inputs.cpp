#include "inputs.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace gaussian_blur_grading {

namespace fs = std::filesystem;

Bytes framed_image(std::mt19937_64& engine, int w, int h, int c) {
    Bytes image(std::size_t(w) * h * c);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int ring = std::min(std::min(x, w - 1 - x), std::min(y, h - 1 - y));
            const int lo = ring == 0 ? 200 : (ring == 1 ? 1 : 80), hi = ring == 0 ? 254 : (ring == 1 ? 50 : 170);
            const Bytes value = random_bytes(engine, std::size_t(c), lo, hi);
            std::copy(value.begin(), value.end(), image.begin() + std::ptrdiff_t((std::size_t(y) * w + x) * c));
        }
    return image;
}

fs::path images_dir() {
    if (const char* dir = std::getenv("GPULAB_DATA_DIR"); dir && *dir) return fs::path(dir) / "images";
    const char* config = std::getenv("GPULAB_LAB_CONFIG");  // the grader's main() always sets it
    if (!config || !*config) throw std::runtime_error("GPULAB_LAB_CONFIG is not set: cannot find data/images");
    return fs::path(config).parent_path().parent_path().parent_path() / "data" / "images";
}

Loaded load(const fs::path& path, const std::string& advice) {
    Loaded loaded;
    try {
        loaded.image = gpulab::load_image(path.string());
        if (loaded.image.channels != 1 && loaded.image.channels != 3 && loaded.image.channels != 4)
            loaded.error = path.string() + ": has " + std::to_string(loaded.image.channels) +
                           " channels; this lab blurs images with 1, 3 or 4";
    } catch (const gpulab::ImageError& e) {
        loaded.error = e.what();
    }
    if (!loaded.error.empty() && !advice.empty()) loaded.error += "\n" + advice;
    return loaded;
}

std::string course_photo_fault(const fs::path& path, std::string problem) {
    // load_image's message starts with the path; say it once, as the repository names it.
    if (problem.rfind(path.string() + ": ", 0) == 0) problem.erase(0, path.string().size() + 2);
    // "cannot be read as an image (<decoder's reason>); is it ...": the decoder's reason is the news.
    const std::string undecodable = "cannot be read as an image (";
    if (problem.rfind(undecodable, 0) == 0 && problem.find(')') != std::string::npos)
        problem = "the image decoder says \"" +
                  problem.substr(undecodable.size(), problem.find(')') - undecodable.size()) +
                  "\": a truncated or damaged file?";
    const char* data_dir = std::getenv("GPULAB_DATA_DIR");
    if (data_dir && *data_dir)
        return check::display_path(path.string()) + " cannot be read (" + problem + "). GPULAB_DATA_DIR points the " +
               "grader at " + data_dir + ": copy the course's data/images/" + path.filename().string() +
               " there, or unset GPULAB_DATA_DIR to use the repository's copy.";
    const std::string in_repo = "data/images/" + path.filename().string();
    return in_repo + " cannot be read (" + problem + "): restore it from git (git checkout " + in_repo +
           ") and grade again.";
}

gpulab::Image with_alpha(const gpulab::Image& rgb) {
    gpulab::Image rgba{rgb.width, rgb.height, 4, {}};
    rgba.pixels.resize(rgba.size());
    const double cx = 0.5 * rgb.width, cy = 0.5 * rgb.height, radius = std::hypot(cx, cy);
    for (int y = 0; y < rgb.height; ++y)
        for (int x = 0; x < rgb.width; ++x) {
            const std::size_t p = std::size_t(y) * rgb.width + x;
            for (int c = 0; c < 3; ++c) rgba.pixels[4 * p + c] = rgb.pixels[rgb.channels * p + (rgb.channels == 3 ? c : 0)];
            rgba.pixels[4 * p + 3] = std::uint8_t(240 - 200 * std::hypot(x - cx, y - cy) / radius);
        }
    return rgba;
}

}  // namespace gaussian_blur_grading
