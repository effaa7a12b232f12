// The grader of lab 03 (Gaussian blur). Points, sizes and thresholds come from
// labs/03-gaussian-blur/lab.json; the handout describes every test by the same name.
#include "api.h"
#include "image_check.h"
#include "oracle.h"

#include "gpulab/launch_geometry.h"
#include "gpulab/random_size.h"
#include "gpulab/cuda_check.h"
#include "gpulab/expert.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/image.h"
#include "gpulab/lab_config.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/random.h"
#include "gpulab/read_counter.h"
#include "gpulab/roofline.h"
#include "gpulab/speed_report.h"
#include "gpulab/timed_field.h"
#include "gpulab/timing.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

namespace {

namespace fs = std::filesystem;
namespace oracle = gaussian_blur_oracle;
namespace check = gaussian_blur_check;
using gpulab::config_at;
using gpulab::fixed;
using gpulab::GuardedDeviceArray;
using gpulab::Json;
using Bytes = std::vector<std::uint8_t>;

const char* const kLab = "03-gaussian-blur";

const GaussianBlurApi& student() { return gpulab::lab_api<GaussianBlurApi>(gpulab::Role::student, kLab); }
const GaussianBlurApi& reference() { return gpulab::lab_api<GaussianBlurApi>(gpulab::Role::reference, kLab); }
const Json& section(const char* name) { return config_at(gpulab::lab_config(), name); }

// ---- Kernels ---------------------------------------------------------------------------------------

enum class Kernel { naive, tiled };

std::string kernel_name(Kernel k) { return k == Kernel::naive ? "naive" : "tiled"; }
std::string launch_name(Kernel k) { return k == Kernel::naive ? "launch_blur_naive" : "launch_blur_tiled"; }

void launch(const GaussianBlurApi& api, Kernel k, const std::uint8_t* in, std::uint8_t* out, int w, int h, int c) {
    (k == Kernel::naive ? api.launch_blur_naive : api.launch_blur_tiled)(in, out, w, h, c);
}

std::string call_text(Kernel k, int w, int h, int c) {
    return launch_name(k) + "(width=" + std::to_string(w) + ", height=" + std::to_string(h) +
           ", channels=" + std::to_string(c) + ")";
}

// What one launch of a student kernel did, on fresh guarded buffers (the output poisoned with 255).
struct StudentRun {
    Bytes out;
    bool input_unchanged = true;
    gpulab::GuardReport in_guards, out_guards;
};

StudentRun run_student(Kernel k, const Bytes& in, int w, int h, int c) {
    GuardedDeviceArray<std::uint8_t> d_in(in.size()), d_out(in.size());
    d_in.upload(in);
    launch(student(), k, d_in.data(), d_out.data(), w, h, c);
    gpulab::check_student_launch(call_text(k, w, h, c));
    StudentRun run;
    run.out = d_out.download();
    run.input_unchanged = d_in.download() == in;
    run.in_guards = d_in.check_guards();
    run.out_guards = d_out.check_guards();
    return run;
}

// The grid of the launch that covers the image (the one with the most blocks).
void note_main_grid(const gpulab::LaunchRecorder& recorder, check::Rerun& run) {
    std::size_t most = 0;
    for (const gpulab::RecordedLaunch& l : recorder.launches())
        if (std::size_t(l.grid.x) * l.grid.y * l.grid.z > most) {
            most = std::size_t(l.grid.x) * l.grid.y * l.grid.z;
            run.grid_x = l.grid.x, run.grid_y = l.grid.y;
        }
}

// The kernel run again on fresh buffers, for the image check's second opinions (a second fill value,
// a probe image). Records the launch where the recorder can (on a GPU): the grid gives the tile.
check::RerunFn rerun_of(Kernel k, int c) {
    return [k, c](const Bytes& input, int w, int h, std::uint8_t fill) {
        GuardedDeviceArray<std::uint8_t> d_in(input.size()), d_out(input.size());
        d_in.upload(input);
        d_out.upload(Bytes(input.size(), fill));
        check::Rerun run;
        {
            std::optional<gpulab::LaunchRecorder> recorder;
            if (gpulab::launch_recording_supported()) recorder.emplace();
            launch(student(), k, d_in.data(), d_out.data(), w, h, c);
            gpulab::check_student_launch(call_text(k, w, h, c) + " (run again by the grader)");
            if (recorder) note_main_grid(*recorder, run);
        }
        run.out = d_out.download();
        return run;
    };
}

// ---- Inputs ----------------------------------------------------------------------------------------

// Random bytes in [lo, hi]. Inputs stay within 1..254: never 0 (a neighbour wrongly read as 0 shows)
// and never 255, so no right answer is 255 and a 255 left in the output means "never written".
Bytes random_bytes(std::mt19937_64& engine, std::size_t n, int lo = 1, int hi = 254) {
    Bytes bytes(n);
    const unsigned span = unsigned(hi - lo + 1);
    std::size_t i = 0;
    while (i < n) {
        std::uint64_t bits = engine();
        for (int b = 0; b < 8 && i < n; ++b, bits >>= 8) bytes[i++] = std::uint8_t(lo + (bits & 0xFF) % span);
    }
    return bytes;
}

std::mt19937_64 engine_for_current_test() { return std::mt19937_64(gpulab::Rng::for_current_test().seed()); }

// An image whose outermost ring of pixels (bright, 200..254), next ring (dark, 1..50) and inside
// (80..170) differ sharply, channel by channel: every way of reading outside the image other than
// clamp-to-edge gives a different border.
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

const char* const kNoVisibleChange =
    "1000 random draws of this input were all left unchanged by the blur, so a kernel that copies its input "
    "would pass: report this to the course staff with the seed";

// The folder of the course photos: $GPULAB_DATA_DIR/images, else data/images of the repository the
// lab's config lives in (labs/03-gaussian-blur/lab.json -> ../../data/images).
fs::path images_dir() {
    if (const char* dir = std::getenv("GPULAB_DATA_DIR"); dir && *dir) return fs::path(dir) / "images";
    const char* config = std::getenv("GPULAB_LAB_CONFIG");  // the grader's main() always sets it
    if (!config || !*config) throw std::runtime_error("GPULAB_LAB_CONFIG is not set: cannot find data/images");
    return fs::path(config).parent_path().parent_path().parent_path() / "data" / "images";
}

// Loads an image through gpulab::load_image; a file that cannot be used fails the test with a message
// naming it, never a crash.
struct Loaded {
    gpulab::Image image;
    std::string error;  // empty when loaded
};

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

// A course photo that cannot be used is the grader's fault, not the submission's: what is wrong with
// the file, and how to get it back.
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

// The photo with an alpha channel added (a radial ramp, 40..240), to blur a real RGBA image.
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

// ---- Checking one image ---------------------------------------------------------------------------

std::string image_text(const std::string& kind, int w, int h, int c) {
    return kind + " " + std::to_string(w) + "x" + std::to_string(h) + " image, " + std::to_string(c) +
           (c == 1 ? " channel" : " channels");
}

// Runs the student's kernel on `in` and demands the oracle's image, byte for byte.
void expect_exact_blur(Kernel k, const Bytes& in, int w, int h, int c, const std::string& kind, bool certain_poison) {
    const StudentRun run = run_student(k, in, w, h, c);
    const Bytes expected = oracle::blur(in, w, h, c);
    // A kernel that copies its input must not pass: the blur has to change the image.
    if (std::size_t(w) * h >= 2 && expected == in)
        return gpulab::fail_as_grader_error("the blur leaves this " + image_text(kind, w, h, c) +
                                            " unchanged, so a kernel that copies its input would pass: report this "
                                            "to the course staff");
    check::ImageUnderTest im;
    im.what = launch_name(k) + " on a " + image_text(kind, w, h, c);
    im.width = w, im.height = h, im.channels = c;
    im.input = &in, im.actual = &run.out, im.expected = &expected;
    im.poison_is_certain = certain_poison;
    im.tiled = k == Kernel::tiled;
    im.rerun = rerun_of(k, c);
    const check::ImageVerdict verdict = check::check_image(im, check::current_test_stem());
    gpulab::record_figure(verdict.ok ? "exact" : verdict.figure, "exact match");
    GPULAB_EXPECT(verdict.ok) << verdict.explanation;
    GPULAB_EXPECT(run.input_unchanged) << call_text(k, w, h, c)
                                       << " changed its INPUT image: read only `in`, write only `out`.";
}

// ---- Test cases ------------------------------------------------------------------------------------

struct ImageSize {
    int w, h, c;
};

std::string size_name(const ImageSize& s) {
    return std::to_string(s.w) + "x" + std::to_string(s.h) + "x" + std::to_string(s.c);
}

std::vector<ImageSize> sizes_times_channels(const Json& spec, const char* sizes_key) {
    std::vector<ImageSize> cases;
    for (const Json& size : spec.at(sizes_key))
        for (int c : spec.at("channels")) cases.push_back({size.at(0), size.at(1), c});
    return cases;
}

std::vector<ImageSize> random_cases() {
    std::vector<ImageSize> cases = sizes_times_channels(section("random"), "sizes");
    for (const ImageSize& s : sizes_times_channels(section("random"), "large")) cases.push_back(s);
    return cases;
}

struct KernelCase {
    Kernel kernel;
    ImageSize size;
};

std::vector<KernelCase> for_both_kernels(const std::vector<ImageSize>& sizes) {
    std::vector<KernelCase> cases;
    for (Kernel k : {Kernel::naive, Kernel::tiled})
        for (const ImageSize& s : sizes) cases.push_back({k, s});
    return cases;
}

std::string kernel_case_name(const testing::TestParamInfo<KernelCase>& info) {
    return kernel_name(info.param.kernel) + "_" + size_name(info.param.size);
}

// ---- Naive / Tiled: random images of awkward sizes --------------------------------------------------

class Naive : public testing::TestWithParam<ImageSize> {};
class Tiled : public testing::TestWithParam<ImageSize> {};

void random_image_test(Kernel k, const ImageSize& s) {
    auto engine = engine_for_current_test();
    const Bytes in = changed_by_blur([&] { return random_bytes(engine, std::size_t(s.w) * s.h * s.c); }, s.w, s.h, s.c);
    if (in.empty()) return gpulab::fail_as_grader_error(kNoVisibleChange);
    expect_exact_blur(k, in, s.w, s.h, s.c, "random", true);
}

// Both blur kernels at the timed size, in a dry run (gpulab/launch_geometry.h): instances of their MatchesOracle.
const bool kTimedGeometry = gpulab::add_geometry_checks([] {
    const Json& spec = section("speed");
    const int w = spec.at("width"), h = spec.at("height"), c = spec.at("channels");
    const std::size_t bytes = std::size_t(w) * h * c;
    std::vector<gpulab::GeometryCheck> checks;
    for (Kernel k : {Kernel::naive, Kernel::tiled})
        checks.push_back({k == Kernel::naive ? "Naive" : "Tiled", "MatchesOracle",
                          std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c), call_text(k, w, h, c),
                          {bytes, bytes}, [k, w, h, c](const std::vector<void*>& b) {
                              launch(student(), k, static_cast<std::uint8_t*>(b[0]), static_cast<std::uint8_t*>(b[1]), w, h, c);
                          }});
    return checks;
});

TEST_P(Naive, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    random_image_test(Kernel::naive, GetParam());
}

TEST_P(Tiled, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    random_image_test(Kernel::tiled, GetParam());
}

// ---- Borders: a frame unlike the inside -------------------------------------------------------------

class Borders : public testing::TestWithParam<KernelCase> {};

TEST_P(Borders, ClampToEdge) {
    GPULAB_REQUIRE_DEVICE();
    const auto [k, s] = GetParam();
    auto engine = engine_for_current_test();
    const Bytes in = changed_by_blur([&] { return framed_image(engine, s.w, s.h, s.c); }, s.w, s.h, s.c);
    if (in.empty()) return gpulab::fail_as_grader_error(kNoVisibleChange);
    expect_exact_blur(k, in, s.w, s.h, s.c, "framed (bright edge ring, dark second ring)", true);
}

// ---- Scope: nothing but the output is written -------------------------------------------------------

class Scope : public testing::TestWithParam<KernelCase> {};

TEST_P(Scope, WritesOnlyTheOutput) {
    GPULAB_REQUIRE_DEVICE();
    const auto [k, s] = GetParam();
    auto engine = engine_for_current_test();
    const Bytes in = random_bytes(engine, std::size_t(s.w) * s.h * s.c);
    const StudentRun run = run_student(k, in, s.w, s.h, s.c);
    const std::string call = call_text(k, s.w, s.h, s.c);
    // A 255 is the grader's fill or a value the kernel computed: a second run, on an output filled with
    // another value, tells them apart (only a byte never written keeps the fill both times).
    std::size_t unwritten = std::size_t(std::count(run.out.begin(), run.out.end(), std::uint8_t(255)));
    if (unwritten) {
        const Bytes again = rerun_of(k, s.c)(in, s.w, s.h, check::kSecondFill).out;
        unwritten = 0;
        for (std::size_t i = 0; i < run.out.size(); ++i) unwritten += run.out[i] == 255 && again[i] == check::kSecondFill;
    }
    if (unwritten)
        gpulab::record_figure(std::to_string(unwritten) + " of " + std::to_string(run.out.size()) + " values unwritten",
                              "nothing else written");
    GPULAB_ASSERT(unwritten == 0) << call << " never wrote " << unwritten << " of the " << run.out.size()
                                  << " output values (they kept the grader's fill in two runs with different fills). "
                                     "This test checks what else the kernel touches, so it can only pass once the "
                                     "kernel writes the whole output image.";
    GPULAB_EXPECT(run.input_unchanged) << call << " changed its INPUT image. Read only `in`, write only `out`: "
                                          "a blur in place would read neighbours that other threads have already "
                                          "overwritten.";
    GPULAB_EXPECT(run.in_guards.intact()) << call << ": " << run.in_guards.describe("the input image");
    GPULAB_EXPECT(run.out_guards.intact())
        << call << ": " << run.out_guards.describe("the output image")
        << " Threads outside the image (the grid is rounded up to whole blocks) must not write; and with "
           "channels interleaved, the last byte of the image is (width*height - 1)*channels + channels-1.";
    gpulab::record_figure(run.input_unchanged && run.in_guards.intact() && run.out_guards.intact()
                              ? "only the output written"
                              : "wrote outside the output",
                          "nothing else written");
}

// ---- Photos ---------------------------------------------------------------------------------------

struct PhotoCase {
    Kernel kernel;
    std::string file;
    bool alpha;
};

std::vector<PhotoCase> photo_cases() {
    std::vector<PhotoCase> cases;
    const Json& spec = section("photos");
    for (Kernel k : {Kernel::naive, Kernel::tiled}) {
        for (const std::string file : spec.at("files")) cases.push_back({k, file, false});
        cases.push_back({k, spec.at("with_alpha").get<std::string>(), true});
    }
    return cases;
}

class Photos : public testing::TestWithParam<PhotoCase> {};

TEST_P(Photos, MatchOracle) {
    GPULAB_REQUIRE_DEVICE();
    const PhotoCase& p = GetParam();
    const fs::path path = images_dir() / p.file;
    Loaded loaded = load(path, "");
    if (!loaded.error.empty()) return gpulab::fail_as_grader_error(course_photo_fault(path, loaded.error));
    if (p.alpha) loaded.image = with_alpha(loaded.image);
    const gpulab::Image& photo = loaded.image;
    const std::string kind = "photo (" + p.file + (p.alpha ? " with an alpha channel added" : "") + "),";
    expect_exact_blur(p.kernel, photo.pixels, photo.width, photo.height, photo.channels, kind, false);
}

// ---- BlurImage: the host function, a photo to look at, and bad sizes -------------------------------

TEST(BlurImage, BeforeAndAfter) {
    GPULAB_REQUIRE_DEVICE();
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
        if (recorder) note_main_grid(*recorder, run);
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

TEST(BlurImage, RefusesBadInput) {
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

// ---- Technique: the tiled kernel's shared memory holds the tile plus its halo ----------------------

TEST(Technique, TiledUsesSharedTile) {
    GPULAB_REQUIRE_GPU();
    const Json& spec = section("technique");
    const int w = spec.at("width"), h = spec.at("height");
    auto engine = engine_for_current_test();
    std::string figure;
    for (int c : spec.at("channels")) {
        const Bytes in = random_bytes(engine, std::size_t(w) * h * c);
        GuardedDeviceArray<std::uint8_t> d_in(in.size()), d_out(in.size());
        d_in.upload(in);
        gpulab::LaunchRecorder recorder;
        student().launch_blur_tiled(d_in.data(), d_out.data(), w, h, c);
        gpulab::check_student_launch(call_text(Kernel::tiled, w, h, c));
        const auto& launches = recorder.launches();
        GPULAB_ASSERT(!launches.empty()) << call_text(Kernel::tiled, w, h, c) << " launched no kernel.";
        // The launch that covers the image: the one with the most blocks.
        const auto blocks = [](const gpulab::RecordedLaunch& l) { return std::size_t(l.grid.x) * l.grid.y * l.grid.z; };
        const gpulab::RecordedLaunch& main = *std::max_element(
            launches.begin(), launches.end(), [&](const auto& a, const auto& b) { return blocks(a) < blocks(b); });
        for (const auto& l : launches) testing::Test::RecordProperty("student_launch_c" + std::to_string(c), l.describe());
        // One block computes one output tile: the image divided by the grid.
        const int tile_w = int((w + main.grid.x - 1) / main.grid.x), tile_h = int((h + main.grid.y - 1) / main.grid.y);
        const std::size_t needed = std::size_t(tile_w + 2) * (tile_h + 2) * c;
        const std::size_t shared = main.shared_bytes();
        figure = std::to_string(shared) + " B shared for a " + std::to_string(tile_w) + "x" + std::to_string(tile_h) +
                 " tile, " + std::to_string(c) + " ch";
        const std::string where = call_text(Kernel::tiled, w, h, c) + " launched " + main.describe() + ": ";
        GPULAB_EXPECT(shared > 0) << where << "the kernel uses no shared memory at all. The tiled kernel must copy "
                                  << "its tile plus halo into a __shared__ array and compute from there.";
        GPULAB_EXPECT(shared == 0 || shared >= needed)
            << where << "one block computes a " << tile_w << "x" << tile_h << " tile of the output (the image "
            << "divided by your grid), so its input is (" << tile_w << "+2)x(" << tile_h << "+2) pixels of " << c
            << " channels = " << needed << " bytes, but the kernel has only " << shared << " bytes of shared memory "
            << "(static + dynamic). Does the tile hold the halo and every channel? (One block per tile: a grid-stride "
            << "loop makes the grader's tile estimate too big.)";
    }
    gpulab::record_figure(figure, ">= (tile+2)^2 x channels bytes");
}

// ---- Technique (CPU execution mode): does the tiled kernel compute from its tile? --------------------------

// What a kernel launched with `launches` (the one with the most blocks) would read per output byte of an image
// if each block loaded its own pixels and the one-pixel halo around them (corners included) once: the image
// shared among the blocks along each axis, a tile of w x h pixels loading (w + 2) x (h + 2). Advice for a kernel
// between the bar and the naive kernel: are its tiles too small, or does it read some pixels from global memory?
std::string tiling_advice(const std::vector<gpulab::RecordedLaunch>& launches, const ImageSize& s, double bound) {
    dim3 grid(0, 0, 0);
    for (const auto& l : launches)
        if (1ull * l.grid.x * l.grid.y > 1ull * grid.x * grid.y) grid = l.grid;
    const double bx = std::min<double>(grid.x, s.w), by = std::min<double>(grid.y, s.h);
    const double ideal = (1 + 2 * bx / s.w) * (1 + 2 * by / s.h);
    std::ostringstream out;
    out << "Your launch on the " << s.w << "x" << s.h << " image has " << grid.x << " x " << grid.y
        << " blocks; if each block loaded its own pixels and the one-pixel halo around them once, that would be "
        << fixed(ideal, 2) << " reads per byte";
    if (ideal > bound)
        out << ", over the bar already: give each block more pixels (8 x 8 tiles read about 1.6 times per byte, "
               "16 x 16 tiles about 1.3).";
    else
        out << ". Yours reads more: compute all 9 values from the tile; some still come from global memory, or "
               "pixels are loaded more than once.";
    return out.str();
}

// Counts, exactly, how often launch_blur_tiled's kernels read the input per output byte (CPU execution mode;
// gpulab-grade runs this test there on a GPU machine too). A kernel that computes from its tile reads each
// input byte once plus its share of the halo (about 1.3 times with 16 x 16 blocks); the naive kernel 9 times.
// Shared memory in the launch (Technique.TiledUsesSharedTile) only shows that a tile exists, not that it is used.
TEST(Technique, ComputesFromSharedTile) {
    GPULAB_REQUIRE_DEVICE();
    GPULAB_REQUIRE_READ_COUNTER();
    const Json& spec = config_at(section("technique"), "reads");
    const double bound = spec.at("max_reads_per_byte");
    auto engine = engine_for_current_test();
    double worst = -1;
    std::string worst_call, figure, advice;
    std::vector<ImageSize> sizes = sizes_times_channels(spec, "sizes");
    const std::vector<int> drawn = gpulab::random_size_for_run(spec.at("random"));  // and one nobody can predict
    sizes.push_back({drawn[0], drawn[1], drawn[2]});
    for (const ImageSize& s : sizes) {
        const Bytes in = random_bytes(engine, std::size_t(s.w) * s.h * s.c);
        GuardedDeviceArray<std::uint8_t> d_in(in.size()), d_out(in.size());
        d_in.upload(in);
        const std::string call = call_text(Kernel::tiled, s.w, s.h, s.c);
        gpulab::LaunchRecorder recorder;  // CPU execution mode: the launch's grid, for the advice
        const gpulab::ReadCount count = gpulab::count_device_reads(d_in.data(), in.size(), [&] {
            student().launch_blur_tiled(d_in.data(), d_out.data(), s.w, s.h, s.c);
            gpulab::check_student_launch(call);
        });
        GPULAB_ASSERT(count.available) << "grader error: could not count the reads of " << call << ": " << count.why;
        if (d_out.download() != oracle::blur(in, s.w, s.h, s.c))
            GTEST_SKIP() << call << " does not blur this image right yet (Tiled.MatchesOracle says where); how it "
                         << "reads its input is judged once it does.";
        GPULAB_ASSERT(count.host_bytes_read == 0)
            << call << " copied " << count.host_bytes_read << " bytes out of the input with cudaMemcpy while it ran. "
            << "The tiled kernel reads the input in the kernel, into a shared-memory tile, and computes from the tile.";
        const double per_byte = double(count.reads) / double(in.size());
        testing::Test::RecordProperty("reads_per_byte_" + size_name(s), fixed(per_byte, 2));
        if (per_byte > worst) {
            worst = per_byte, worst_call = call;
            advice = tiling_advice(recorder.launches(), s, bound);
        }
        figure += (figure.empty() ? "" : ", ") + fixed(per_byte, 2) + " reads/byte at " + size_name(s);
    }
    gpulab::record_figure(figure + " (naive: 9)", "<= " + fixed(bound, 1) + " global reads of the input per byte");
    std::ostringstream why;
    const gpulab::TileUse use = gpulab::classify_tile_use(worst, 9);
    if (use == gpulab::TileUse::like_naive)
        why << "That is as often as the naive kernel, which reads all 9 neighbours of every pixel from global memory: "
               "does launch_blur_tiled launch the tiled kernel, and does that kernel compute from its tile?";
    else if (use == gpulab::TileUse::beyond_naive)
        why << "That is more than the naive kernel's 9: your kernel copies a tile into shared memory but still reads "
               "its neighbours from global memory. Compute from the tile: after __syncthreads() all 9 values of the "
               "3x3 neighbourhood come from the __shared__ array.";
    else
        why << advice;
    GPULAB_EXPECT(worst <= bound) << worst_call << " reads its input " << fixed(worst, 2)
                                  << " times per output byte (counted exactly in CPU execution mode; a tiled kernel "
                                     "reads each input byte once into its tile, plus its share of the halo; the "
                                     "naive kernel 9 times; allowed: at most "
                                  << fixed(bound, 1) << "). " << why.str();
}

// ---- Speed: the same technique as the reference, same run -------------------------------------------

using BlurLaunch = std::function<void(const std::uint8_t*, std::uint8_t*, int, int, int)>;
BlurLaunch student_launch(Kernel k) {
    return [k](const std::uint8_t* in, std::uint8_t* out, int w, int h, int c) { launch(student(), k, in, out, w, h, c); };
}
std::function<std::string(int, int, int)> student_call(Kernel k) {
    return [k](int w, int h, int c) { return call_text(k, w, h, c); };
}

// The rules every timed blur is held to (gpulab/timed_work.h): a fresh image before every sample, a sample
// of output bytes recomputed exactly after it, the compulsory traffic at the device copy's bandwidth as the
// floor, and the kernels the launch ran at the technique size as the only ones allowed.
// `run` is the launch function timed (the student's, or the expert's on the roofline) and `call_at` names it at
// a size, for messages.
gpulab::TimedWork timed_blur(const BlurLaunch& run, const std::function<std::string(int, int, int)>& call_at, int w,
                             int h, int c, std::uint8_t* d_in, const std::uint8_t* d_out, double copy_gbs) {
    const Json& spec = section("speed");
    gpulab::TimedWork work;
    work.call = call_at(w, h, c);
    work.seed = gpulab::Rng::for_current_test().seed();
    const std::size_t bytes = std::size_t(w) * h * c;
    gpulab::FieldOracle oracle;
    oracle.cells = bytes;
    // Clamp-to-edge, weights 1 2 1 / 2 4 2 / 1 2 1, rounded half up: the handout's rule, byte by byte.
    oracle.expected = [w, h, c](std::size_t at, const gpulab::FreshDraw& d) {
        const int ch = int(at % c), x = int(at / c % w), y = int(at / (std::size_t(c) * w));
        int sum = 0;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int yy = std::clamp(y + dy, 0, h - 1), xx = std::clamp(x + dx, 0, w - 1);
                sum += (2 - std::abs(dx)) * (2 - std::abs(dy)) * d.byte_at((std::size_t(yy) * w + xx) * c + ch);
            }
        return gpulab::CellExpectation{double((sum + 8) >> 4), 0.0};
    };
    oracle.name = [w, c](std::size_t at) {
        return "pixel (" + std::to_string(at / c % w) + ", " + std::to_string(at / (std::size_t(c) * w)) + ") channel " +
               std::to_string(at % c);
    };
    oracle.always = {0, bytes - 1, std::size_t(w - 1) * c, bytes - std::size_t(w) * c};
    gpulab::use_fresh_field(work, d_in, bytes, gpulab::FreshDraw{}, d_out, spec.at("fresh_checks"), oracle);
    gpulab::set_memory_floor(work, 2.0 * double(bytes), copy_gbs, spec.at("floor_margin"));
    const Json& technique = section("technique");
    const int pw = technique.at("width"), ph = technique.at("height");
    GuardedDeviceArray<std::uint8_t> p_in(std::size_t(pw) * ph * c), p_out(std::size_t(pw) * ph * c);
    gpulab::fill_fresh(p_in.data(), p_in.size(), gpulab::FreshDraw{1});
    work.approved = gpulab::probe_launches([&] { run(p_in.data(), p_out.data(), pw, ph, c); });
    gpulab::check_student_launch(call_at(pw, ph, c));
    work.approved_at = std::to_string(pw) + " x " + std::to_string(ph) + " x " + std::to_string(c);
    return work;
}

void speed_test(Kernel k) {
    GPULAB_REQUIRE_GPU();
    const Json& spec = section("speed");
    const int w = spec.at("width"), h = spec.at("height"), c = spec.at("channels");
    auto engine = engine_for_current_test();
    const Bytes in = random_bytes(engine, std::size_t(w) * h * c);
    GuardedDeviceArray<std::uint8_t> d_in(in.size()), d_student(in.size()), d_reference(in.size());
    d_in.upload(in);

    gpulab::TimingOptions options;
    options.warmup = spec.at("warmup");
    options.samples = spec.at("samples");
    const double copy_gbs = gpulab::copy_bandwidth_gbs(in.size(), options);
    gpulab::TimedWork work = timed_blur(student_launch(k), student_call(k), w, h, c, d_in.data(), d_student.data(), copy_gbs);

    // Speed counts only for a correct kernel, so check this size first (under the deadline).
    {
        gpulab::LaunchRecorder recorder;
        gpulab::first_launch_under_deadline(work, [&] { launch(student(), k, d_in.data(), d_student.data(), w, h, c); },
                                            [&] { launch(reference(), k, d_in.data(), d_reference.data(), w, h, c); });
        gpulab::check_student_launch(call_text(k, w, h, c));
        for (const auto& l : recorder.launches()) testing::Test::RecordProperty("student_launch", l.describe());
    }
    {
        const Bytes out = d_student.download();
        const Bytes expected = oracle::blur(in, w, h, c);
        check::ImageUnderTest im;
        im.what = launch_name(k) + " on a " + image_text("random", w, h, c);
        im.width = w, im.height = h, im.channels = c;
        im.input = &in, im.actual = &out, im.expected = &expected;
        im.tiled = k == Kernel::tiled;
        const check::ImageVerdict verdict = check::check_image(im, check::current_test_stem());
        GPULAB_ASSERT(verdict.ok) << verdict.explanation;
    }

    const double threshold = spec.at("min_fraction_of_reference");
    const gpulab::SpeedVerdict verdict = gpulab::judge_speed(
        [&] { launch(student(), k, d_in.data(), d_student.data(), w, h, c); },
        [&] { launch(reference(), k, d_in.data(), d_reference.data(), w, h, c); }, threshold,
        spec.at("max_remeasures"), options, {d_student.data(), in.size()}, {d_reference.data(), in.size()}, &work);
    const double bytes = 2.0 * double(in.size());  // every byte read once and written once, at least
    const gpulab::Throughput throughput = gpulab::record_speed(verdict, bytes, copy_gbs, std::string("ref ") + kernel_name(k));
    GPULAB_ASSERT(verdict.honest()) << gpulab::dishonest_speed(work.call, verdict);
    GPULAB_EXPECT(verdict.passed())
        << "Your " << kernel_name(k) << " kernel runs at " << fixed(verdict.fraction, 2) << "x the throughput of the "
        << "reference's " << kernel_name(k) << " kernel on a " << image_text("random", w, h, c) << " ("
        << gpulab::speed_comparison(verdict, throughput) << "). The bar is " << fixed(threshold, 2) << "x. Measured "
        << verdict.rounds << " time(s). "
        << (k == Kernel::naive
                ? "Do neighbouring threads (threadIdx.x) handle neighbouring pixels of one row, and is the block "
                  "at least 128 threads (e.g. 32x8)?"
                : "Are the loads into the tile coalesced (neighbouring threads on neighbouring bytes), is the "
                  "tile at least 16x16, and does each thread do one pixel's work after the barrier?");
}

TEST(Speed, NaiveThroughput) { speed_test(Kernel::naive); }
TEST(Speed, TiledThroughput) { speed_test(Kernel::tiled); }

// ---- Report: the roofline ----------------------------------------------------------------------------

// Each kernel at the speed size on the roofline of this GPU (gpulab/roofline.h), beside the reference's and
// the expert's. lab.json "roofline" states what a blurred byte costs: 9 multiplies and 8 adds, plus the rounding's add and shift: 19 integer
// operations, and 2 compulsory bytes (one read, one write).
TEST(Report, Roofline) {
    GPULAB_REQUIRE_GPU();
    const Json& speed = section("speed");
    const int w = speed.at("width"), h = speed.at("height"), c = speed.at("channels");
    const std::size_t n = std::size_t(w) * h * c;
    GuardedDeviceArray<std::uint8_t> d_in(n), d_out(n), d_reference(n);
    gpulab::fill_fresh(d_in.data(), n, gpulab::FreshDraw{2});
    gpulab::TimingOptions options;
    options.warmup = section("roofline").at("warmup");
    options.samples = section("roofline").at("samples");
    const gpulab::Roofs roofs = gpulab::measure_roofs(n, options);
    const Json& roof = section("roofline");
    const double ops = roof.at("operations_per_byte").get<double>() * double(n),
                 bytes = roof.at("bytes_per_byte").get<double>() * double(n);
    std::vector<gpulab::RooflineKernel> kernels;
    for (Kernel k : {Kernel::naive, Kernel::tiled}) {
        auto work = std::make_shared<gpulab::TimedWork>(
            timed_blur(student_launch(k), student_call(k), w, h, c, d_in.data(), d_out.data(), roofs.copy_gbs));
        gpulab::add_student_and_reference(
            kernels, kernel_name(k), "int32", ops, bytes, [&, k] { launch(student(), k, d_in.data(), d_out.data(), w, h, c); },
            [&, k] { launch(reference(), k, d_in.data(), d_reference.data(), w, h, c); }, work);
    }
    std::string why;
    if (const auto* expert = gpulab::expert_api<GaussianBlurExpertApi>(kLab, &why)) {
        const BlurLaunch run = [expert](const std::uint8_t* in, std::uint8_t* out, int ww, int hh, int cc) {
            expert->launch_blur(in, out, ww, hh, cc);
        };
        const auto call = [](int ww, int hh, int cc) {
            return "expert::launch_blur(" + std::to_string(ww) + " x " + std::to_string(hh) + " x " + std::to_string(cc) + ")";
        };
        kernels.push_back({"expert", "expert", "int32", ops, bytes, [&, run] { run(d_in.data(), d_out.data(), w, h, c); },
                           std::make_shared<gpulab::TimedWork>(
                               timed_blur(run, call, w, h, c, d_in.data(), d_out.data(), roofs.copy_gbs))});
    } else {
        kernels.push_back({"expert", "expert", "int32", ops, bytes, {}, nullptr, why});
    }
    gpulab::publish_roofline(gpulab::measure_roofline(roofs, image_text("random", w, h, c), kernels, options),
                             "[lab 03]");
}

// ---- Instantiations (names come from the arguments, so they cannot drift) ---------------------------

const auto image_size_name = [](const testing::TestParamInfo<ImageSize>& info) { return size_name(info.param); };

INSTANTIATE_TEST_SUITE_P(Images, Naive, testing::ValuesIn(random_cases()), image_size_name);
INSTANTIATE_TEST_SUITE_P(Images, Tiled, testing::ValuesIn(random_cases()), image_size_name);
INSTANTIATE_TEST_SUITE_P(Frames, Borders,
                         testing::ValuesIn(for_both_kernels(sizes_times_channels(section("borders"), "sizes"))),
                         kernel_case_name);
INSTANTIATE_TEST_SUITE_P(Images, Scope,
                         testing::ValuesIn(for_both_kernels(sizes_times_channels(section("scope"), "sizes"))),
                         kernel_case_name);
INSTANTIATE_TEST_SUITE_P(Files, Photos, testing::ValuesIn(photo_cases()),
                         [](const testing::TestParamInfo<PhotoCase>& info) {
                             std::string name = kernel_name(info.param.kernel) + "_" + info.param.file;
                             if (info.param.alpha) name += "_rgba";
                             for (char& ch : name)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return name;
                         });

}  // namespace
