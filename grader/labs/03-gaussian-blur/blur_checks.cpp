#include "blur_checks.h"

#include "inputs.h"
#include "oracle.h"

#include "gpulab/grader_test.h"

#include <algorithm>
#include <cctype>

namespace gaussian_blur_grading {

namespace fs = std::filesystem;

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

std::vector<ImageSize> random_cases() {
    std::vector<ImageSize> cases = sizes_times_channels(section("random"), "sizes");
    for (const ImageSize& s : sizes_times_channels(section("random"), "large")) cases.push_back(s);
    return cases;
}

void check_random_image(Kernel k, const ImageSize& s) {
    auto engine = engine_for_current_test();
    const Bytes in = changed_by_blur([&] { return random_bytes(engine, std::size_t(s.w) * s.h * s.c); }, s.w, s.h, s.c);
    if (in.empty()) return gpulab::fail_as_grader_error(kNoVisibleChange);
    expect_exact_blur(k, in, s.w, s.h, s.c, "random", true);
}

// Both blur kernels at the timed size, in a dry run (gpulab/launch_geometry.h): instances of their MatchesOracle.
// Their buffers as speed.cpp draws them: every byte value in the input (FreshDraw::byte_at), the output not read.
std::vector<gpulab::GeometryCheck> timed_geometry_checks() {
    const Json& spec = section("speed");
    const int w = spec.at("width"), h = spec.at("height"), c = spec.at("channels");
    const std::size_t bytes = std::size_t(w) * h * c;
    std::vector<gpulab::GeometryCheck> checks;
    for (Kernel k : {Kernel::naive, Kernel::tiled})
        checks.push_back({k == Kernel::naive ? "Naive" : "Tiled", "MatchesOracle",
                          std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c), call_text(k, w, h, c),
                          {bytes, bytes}, [k, w, h, c](const std::vector<void*>& b) {
                              launch(student(), k, static_cast<std::uint8_t*>(b[0]), static_cast<std::uint8_t*>(b[1]), w, h, c);
                          }, {gpulab::BufferDraw::bytes(), gpulab::BufferDraw::output_like(gpulab::BufferDraw::bytes())}});
    return checks;
}

void check_borders(const KernelCase& c) {
    const auto [k, s] = c;
    auto engine = engine_for_current_test();
    const Bytes in = changed_by_blur([&] { return framed_image(engine, s.w, s.h, s.c); }, s.w, s.h, s.c);
    if (in.empty()) return gpulab::fail_as_grader_error(kNoVisibleChange);
    expect_exact_blur(k, in, s.w, s.h, s.c, "framed (bright edge ring, dark second ring)", true);
}

void check_scope(const KernelCase& c) {
    const auto [k, s] = c;
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

std::vector<PhotoCase> photo_cases() {
    std::vector<PhotoCase> cases;
    const Json& spec = section("photos");
    for (Kernel k : {Kernel::naive, Kernel::tiled}) {
        for (const std::string file : spec.at("files")) cases.push_back({k, file, false});
        cases.push_back({k, spec.at("with_alpha").get<std::string>(), true});
    }
    return cases;
}

std::string photo_case_name(const testing::TestParamInfo<PhotoCase>& info) {
    std::string name = kernel_name(info.param.kernel) + "_" + info.param.file;
    if (info.param.alpha) name += "_rgba";
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
}

void check_photo(const PhotoCase& p) {
    const fs::path path = images_dir() / p.file;
    Loaded loaded = load(path, "");
    if (!loaded.error.empty()) return gpulab::fail_as_grader_error(course_photo_fault(path, loaded.error));
    if (p.alpha) loaded.image = with_alpha(loaded.image);
    const gpulab::Image& photo = loaded.image;
    const std::string kind = "photo (" + p.file + (p.alpha ? " with an alpha channel added" : "") + "),";
    expect_exact_blur(p.kernel, photo.pixels, photo.width, photo.height, photo.channels, kind, false);
}

}  // namespace gaussian_blur_grading
