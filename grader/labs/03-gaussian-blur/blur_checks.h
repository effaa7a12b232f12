// Does one launch of a student's blur kernel give the oracle's image byte for byte (random images of awkward
// sizes: Naive / Tiled.MatchesOracle; a frame unlike the inside: Borders.ClampToEdge; the course photos:
// Photos.MatchOracle), and write nothing but its output (Scope.WritesOnlyTheOutput)? A difference is explained
// by the image check (image_check.h): where, what, a likely cause, and pictures.
#pragma once

#include "blur_grading.h"

#include "gpulab/launch_geometry.h"

#include <string>
#include <vector>

namespace gaussian_blur_grading {

std::vector<ImageSize> random_cases();  // lab.json random.sizes and random.large, x channels
void check_random_image(Kernel k, const ImageSize& s);
// Both blur kernels at the timed size, checked in a dry run: instances of their MatchesOracle.
std::vector<gpulab::GeometryCheck> timed_geometry_checks();

void check_borders(const KernelCase& c);
void check_scope(const KernelCase& c);

struct PhotoCase {
    Kernel kernel;
    std::string file;
    bool alpha;
};
std::vector<PhotoCase> photo_cases();  // both kernels x lab.json photos.files, and one with an alpha channel
std::string photo_case_name(const testing::TestParamInfo<PhotoCase>& info);  // "tiled_camera_png_rgba"
void check_photo(const PhotoCase& p);

// Runs the student's kernel on `in` and demands the oracle's image, byte for byte.
void expect_exact_blur(Kernel k, const Bytes& in, int w, int h, int c, const std::string& kind, bool certain_poison);

}  // namespace gaussian_blur_grading
