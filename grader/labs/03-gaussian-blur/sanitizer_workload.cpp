// Lab 03's part of the sanitizer pass (gpulab/sanitizer_check.h): the naive and tiled blurs, each launched
// once on a random 37 x 29 RGB image (no tile divides it), on exactly sized buffers, for Sanitizer.NoErrors to
// run under compute-sanitizer.
#include "api.h"
#include "oracle.h"

#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/random.h"
#include "gpulab/sanitizer_check.h"

namespace {

std::vector<float> as_floats(const std::vector<std::uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

const bool kSanitizerWorkload = gpulab::add_sanitizer_workload([] {
    const GaussianBlurApi& api = gpulab::lab_api<GaussianBlurApi>(gpulab::Role::student, "03-gaussian-blur");
    const int width = 37, height = 29, channels = 3;
    auto rng = gpulab::Rng::for_current_test();
    std::vector<std::uint8_t> image;
    for (float v : rng.uniform_floats(std::size_t(width) * height * channels, 0.0f, 255.99f))
        image.push_back(std::uint8_t(v));
    const std::vector<std::uint8_t> blurred = gaussian_blur_oracle::blur(image, width, height, channels);
    gpulab::Shape shape;
    shape.nx = std::size_t(width) * channels;
    shape.ny = std::size_t(height);
    gpulab::ExactDeviceArray<std::uint8_t> d_in(image);
    for (const auto& [name, launch] : {std::pair{"launch_blur_naive", api.launch_blur_naive},
                                       std::pair{"launch_blur_tiled", api.launch_blur_tiled}}) {
        gpulab::ExactDeviceArray<std::uint8_t> d_out(image.size(), gpulab::kPoisonByte);
        launch(d_in.data(), d_out.data(), width, height, channels);
        gpulab::check_student_launch(name);
        const auto expected = as_floats(blurred);
        gpulab::check_workload_output(name, gpulab::compare(as_floats(d_out.download()),
                                                            std::vector<double>(expected.begin(), expected.end()),
                                                            shape, {0, 0}));
    }
});

}  // namespace
