// The blur's inputs: random images, images with a frame unlike their inside, and the course photos (a file
// that cannot be used is the grader's fault, and says how to get it back).
#pragma once

#include "blur_grading.h"

#include "gpulab/image.h"

#include <filesystem>
#include <random>
#include <string>

namespace gaussian_blur_grading {

// An image whose outermost ring of pixels (bright, 200..254), next ring (dark, 1..50) and inside
// (80..170) differ sharply, channel by channel: every way of reading outside the image other than
// clamp-to-edge gives a different border.
Bytes framed_image(std::mt19937_64& engine, int w, int h, int c);

// Draws inputs until the blur visibly changes one (a kernel that copies its input must not pass).
// A 1x1 image never changes, so it is taken as drawn. Tiny flat draws are rare (a 2x2 framed grey
// image stays unchanged about once in 14 000), but redrawing makes them impossible, not rare:
// deterministic for a given seed, never a flake.
// Empty (a grader error, for the caller to report) when no such input turns up.
template <typename Draw>
Bytes changed_by_blur(Draw draw, int w, int h, int c) {
    for (int attempt = 0; attempt < 1000; ++attempt) {
        Bytes in = draw();
        if (std::size_t(w) * h < 2 || oracle::blur(in, w, h, c) != in) return in;
    }
    return {};
}

inline constexpr const char* kNoVisibleChange =
    "1000 random draws of this input were all left unchanged by the blur, so a kernel that copies its input "
    "would pass: report this to the course staff with the seed";

// The folder of the course photos: $GPULAB_DATA_DIR/images, else data/images of the repository the
// lab's config lives in (labs/03-gaussian-blur/lab.json -> ../../data/images).
std::filesystem::path images_dir();

// Loads an image through gpulab::load_image; a file that cannot be used fails the test with a message
// naming it, never a crash.
struct Loaded {
    gpulab::Image image;
    std::string error;  // empty when loaded
};
Loaded load(const std::filesystem::path& path, const std::string& advice);

// A course photo that cannot be used is the grader's fault, not the submission's: what is wrong with
// the file, and how to get it back.
std::string course_photo_fault(const std::filesystem::path& path, std::string problem);

// The photo with an alpha channel added (a radial ramp, 40..240), to blur a real RGBA image.
gpulab::Image with_alpha(const gpulab::Image& rgb);

}  // namespace gaussian_blur_grading
