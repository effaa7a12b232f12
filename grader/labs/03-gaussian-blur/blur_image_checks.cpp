#include "blur_image_checks.h"

#include "blur_grading.h"
#include "inputs.h"
#include "oracle.h"

#include "gpulab/grader_test.h"
#include "gpulab/image.h"
#include "gpulab/launch_recorder.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <stdexcept>

namespace gaussian_blur_grading {

namespace fs = std::filesystem;

void check_before_and_after() {
    const char* mine = std::getenv("GPULAB_PHOTO");
    const bool own = mine && *mine;
    const fs::path path = own ? fs::path(mine) : images_dir() / section("blur_image").at("photo").get<std::string>();
    const Loaded loaded = load(path, own ? "GPULAB_PHOTO names this file. Point it at a PNG or JPEG with 1, 3 or 4 "
                                           "channels, or unset it to blur the course photo."
                                         : "");
    if (!loaded.error.empty() && !own) return gpulab::fail_as_grader_error(course_photo_fault(path, loaded.error));
    GPULAB_ASSERT(loaded.error.empty()) << "Cannot blur your photo (GPULAB_PHOTO): " << loaded.error;
    const gpulab::Image& photo = loaded.image;
    gpulab::Image after{photo.width, photo.height, photo.channels, Bytes(photo.size(), 255)};
    // The blur must happen on the GPU: blur_image that blurs on the host is right but is not the lab.
    std::optional<gpulab::LaunchRecorder> recorder;
    if (gpulab::launch_recording_supported()) recorder.emplace();
    student().blur_image(photo.pixels.data(), after.pixels.data(), photo.width, photo.height, photo.channels);
    const bool launched = !recorder || !recorder->launches().empty();
    recorder.reset();
    GPULAB_EXPECT(launched) << "blur_image on " << path.filename().string() << " launched no kernel: the image was blurred "
                            << "without the GPU. blur_image must copy the image into device buffers, run launch_blur_tiled "
                            << "on them and copy the result back (step 3 of the handout).";

    const Bytes expected = oracle::blur(photo.pixels, photo.width, photo.height, photo.channels);
    check::ImageUnderTest im;
    im.what = "blur_image (which runs launch_blur_tiled) on " + path.filename().string() + " (" + std::to_string(photo.width) + "x" +
              std::to_string(photo.height) + ", " + std::to_string(photo.channels) + " channels)";
    im.width = photo.width, im.height = photo.height, im.channels = photo.channels;
    im.input = &photo.pixels, im.actual = &after.pixels, im.expected = &expected;
    im.poison_is_certain = false;
    im.tiled = true;
    // blur_image run again, on host buffers the grader fills (it launches the tiled kernel inside).
    im.rerun = [c = photo.channels](const Bytes& input, int w, int h, std::uint8_t fill) {
        check::Rerun run;
        run.out.assign(input.size(), fill);
        std::optional<gpulab::LaunchRecorder> recorder;
        if (gpulab::launch_recording_supported()) recorder.emplace();
        student().blur_image(input.data(), run.out.data(), w, h, c);
        if (recorder) note_main_grid(recorder->launches(), run);
        return run;
    };
    const check::ImageVerdict verdict = check::check_image(im, check::current_test_stem());
    if (!verdict.ok) {
        gpulab::record_figure(verdict.figure, "exact match");
        ADD_FAILURE() << verdict.explanation;
        return;
    }
    // Before and after, where the student can open them.
    const std::string stem = path.stem().string();
    const fs::path dir = gpulab::artifact_dir();
    const std::string before_png = (dir / (stem + "_before.png")).string(), after_png = (dir / (stem + "_after.png")).string();
    gpulab::save_png(before_png, photo);
    gpulab::save_png(after_png, after);
    std::cout << "[lab 03] your blur of " << path.string() << ": open " << check::display_path(before_png) << " and "
              << check::display_path(after_png) << "\n";
    testing::Test::RecordProperty("before_png", check::display_path(before_png));
    testing::Test::RecordProperty("after_png", check::display_path(after_png));
    gpulab::record_figure("exact; wrote " + stem + "_before.png, " + stem + "_after.png",
                          "exact; pictures in " + check::display_path(dir.string()));
}

void check_refuses_bad_input() {
    struct Bad {
        int w, h, c;
        const char* what;
    };
    const Bad cases[] = {{0, 16, 3, "width 0"},  {16, 0, 3, "height 0"},   {-4, 16, 1, "width -4"},
                         {16, 16, 2, "2 channels"}, {16, 16, 5, "5 channels"}, {16, 16, 0, "0 channels"}};
    // Big enough for 16x16 pixels of 5 channels, so a call that runs anyway stays inside them.
    const Bytes in(16 * 16 * 5, 100);
    int refused_count = 0;
    for (const Bad& bad : cases) {
        Bytes out(in.size(), 7);
        const std::string call = "blur_image(width=" + std::to_string(bad.w) + ", height=" + std::to_string(bad.h) +
                                 ", channels=" + std::to_string(bad.c) + ")";
        try {
            student().blur_image(in.data(), out.data(), bad.w, bad.h, bad.c);
            ADD_FAILURE() << call << " (" << bad.what << ") was accepted. Refuse it with std::invalid_argument "
                          << "before touching the GPU: an image has at least 1x1 pixels of 1, 3 or 4 channels.";
        } catch (const std::invalid_argument& refused) {
            GPULAB_EXPECT(std::string(refused.what()).size() > 0)
                << call << ": the std::invalid_argument should say what is wrong";
            ++refused_count;
        } catch (const std::exception& other) {
            if (std::string(other.what()).find("TODO(lab-") != std::string::npos) {
                ADD_FAILURE() << other.what();  // the starter's unwritten blur_image
                return;
            }
            ADD_FAILURE() << call << " (" << bad.what << ") threw something other than std::invalid_argument: "
                          << other.what() << ". Check the size before any CUDA call.";
        }
        GPULAB_EXPECT(std::all_of(out.begin(), out.end(), [](std::uint8_t v) { return v == 7; }))
            << call << " (" << bad.what << ") wrote into `out`; a refused call must leave it alone.";
    }
    gpulab::record_figure("refused " + std::to_string(refused_count) + " of " + std::to_string(std::size(cases)) +
                              " bad sizes",
                          "std::invalid_argument for each");
}

}  // namespace gaussian_blur_grading
