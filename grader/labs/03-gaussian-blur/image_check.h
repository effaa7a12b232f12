// Compares a blurred image with the oracle's, byte for byte, and explains a difference the way a
// student can act on: where, what, a likely cause, and pictures (input, expected, actual, diff).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gaussian_blur_check {

// What running the code under test once more gave: its output, and the grid of its main launch (the
// one with the most blocks) where the launch recorder could see it (0 in CPU execution mode).
struct Rerun {
    std::vector<std::uint8_t> out;
    unsigned grid_x = 0, grid_y = 0;
};
// Runs the code under test again on fresh buffers: `input` (width x height pixels, the channel count of
// the image under test) into an output the grader filled with `fill`.
using RerunFn = std::function<Rerun(const std::vector<std::uint8_t>& input, int width, int height, std::uint8_t fill)>;

// The fill of the second run that tells a 255 the kernel wrote from a byte it never wrote: only a byte
// that holds the first run's 255 and this second fill was never written.
constexpr std::uint8_t kSecondFill = 0;

struct ImageUnderTest {
    std::string what;  // "launch_blur_tiled on a random 127x131 image, 3 channels"
    int width = 0, height = 0, channels = 0;
    const std::vector<std::uint8_t>* input = nullptr;
    const std::vector<std::uint8_t>* actual = nullptr;
    const std::vector<std::uint8_t>* expected = nullptr;
    // Without `rerun`: true when no right answer can be 255 (the grader's random inputs stay within
    // 1..254), so a 255 left in the output means "never written" for certain; photos can be white, so
    // there it means "probably never written". With `rerun` a second run decides, and this is unused.
    bool poison_is_certain = true;
    // A hint about the kernel that produced `actual` ("tiled" gets tile-edge and barrier hints).
    bool tiled = false;
    // Optional: runs the same code again. Used to tell bytes never written from 255s the kernel
    // computed (a second run with the output filled with kSecondFill), and, for a tiled kernel, to
    // test a suspected halo-corner bug on an image with tile corners inside it.
    RerunFn rerun;
};

struct ImageVerdict {
    bool ok = false;
    std::size_t wrong = 0;      // channel values that differ
    std::size_t unwritten = 0;  // ... of which still hold the grader's 255 (where 255 is not right)
    std::size_t computed_255 = 0;  // ... of which hold a 255 the kernel wrote (told apart by a second run)
    std::size_t values = 0;
    int max_error = 0;
    std::string figure;       // one line for the grade table
    std::string explanation;  // several lines for "what went wrong", with the artifact paths
};

// Compares; on a difference writes <stem>_input.png, _expected.png, _actual.png and _diff.png into
// gpulab::artifact_dir() (a window around the first difference for images larger than 1024 pixels
// on a side; tiny images are enlarged so they can be seen) and names them in the explanation.
ImageVerdict check_image(const ImageUnderTest& image, const std::string& artifact_stem);

// The artifact stem for the running test: its full GoogleTest name with '/' turned into '_'.
std::string current_test_stem();

// A path as a student can open it: relative to the current directory when inside it, else absolute.
std::string display_path(const std::string& path);

}  // namespace gaussian_blur_check
