// What lab 03's checks share: the solutions, the config, the two kernels by name, one checked run of a
// student's kernel on guarded buffers, random images, and the test cases' image sizes.
#pragma once

#include "api.h"
#include "image_check.h"
#include "oracle.h"

#include "gpulab/guarded_array.h"
#include "gpulab/lab_config.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/random.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace gaussian_blur_grading {

using gpulab::Json;
using Bytes = std::vector<std::uint8_t>;
namespace check = gaussian_blur_check;
namespace oracle = gaussian_blur_oracle;

inline constexpr const char* kLab = "03-gaussian-blur";

const GaussianBlurApi& student();
const GaussianBlurApi& reference();
const Json& section(const char* name);

enum class Kernel { naive, tiled };
std::string kernel_name(Kernel k);  // "naive", "tiled"
std::string launch_name(Kernel k);  // "launch_blur_naive", "launch_blur_tiled"
void launch(const GaussianBlurApi& api, Kernel k, const std::uint8_t* in, std::uint8_t* out, int w, int h, int c);
std::string call_text(Kernel k, int w, int h, int c);  // "launch_blur_tiled(width=127, height=131, channels=3)"
std::string image_text(const std::string& kind, int w, int h, int c);  // "random 127x131 image, 3 channels"

// What one launch of a student kernel did, on fresh guarded buffers (the output poisoned with 255).
struct StudentRun {
    Bytes out;
    bool input_unchanged = true;
    gpulab::GuardReport in_guards, out_guards;
};
StudentRun run_student(Kernel k, const Bytes& in, int w, int h, int c);

// The kernel run again on fresh buffers, for the image check's second opinions (a second fill value,
// a probe image). Records the launch where the recorder can (on a GPU): the grid gives the tile.
check::RerunFn rerun_of(Kernel k, int c);
// The grid of the launch that covers the image (the one with the most blocks), into `run`.
void note_main_grid(const std::vector<gpulab::RecordedLaunch>& launches, check::Rerun& run);

// Random bytes in [lo, hi]. Inputs stay within 1..254: never 0 (a neighbour wrongly read as 0 shows)
// and never 255, so no right answer is 255 and a 255 left in the output means "never written".
Bytes random_bytes(std::mt19937_64& engine, std::size_t n, int lo = 1, int hi = 254);
std::mt19937_64 engine_for_current_test();

struct ImageSize {
    int w, h, c;
};
std::string size_name(const ImageSize& s);  // "127x131x3"
std::vector<ImageSize> sizes_times_channels(const Json& spec, const char* sizes_key);

struct KernelCase {
    Kernel kernel;
    ImageSize size;
};
std::vector<KernelCase> for_both_kernels(const std::vector<ImageSize>& sizes);
std::string kernel_case_name(const testing::TestParamInfo<KernelCase>& info);  // "tiled_127x131x3"

}  // namespace gaussian_blur_grading
