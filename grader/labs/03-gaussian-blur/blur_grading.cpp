#include "blur_grading.h"

#include "tile_reads.h"

#include "gpulab/cuda_check.h"
#include "gpulab/launch_recorder.h"

#include <optional>

namespace gaussian_blur_grading {

using gpulab::GuardedDeviceArray;

const GaussianBlurApi& student() { return gpulab::lab_api<GaussianBlurApi>(gpulab::Role::student, kLab); }
const GaussianBlurApi& reference() { return gpulab::lab_api<GaussianBlurApi>(gpulab::Role::reference, kLab); }
const Json& section(const char* name) { return gpulab::config_at(gpulab::lab_config(), name); }

std::string kernel_name(Kernel k) { return k == Kernel::naive ? "naive" : "tiled"; }
std::string launch_name(Kernel k) { return k == Kernel::naive ? "launch_blur_naive" : "launch_blur_tiled"; }

void launch(const GaussianBlurApi& api, Kernel k, const std::uint8_t* in, std::uint8_t* out, int w, int h, int c) {
    (k == Kernel::naive ? api.launch_blur_naive : api.launch_blur_tiled)(in, out, w, h, c);
}

std::string call_text(Kernel k, int w, int h, int c) {
    return launch_name(k) + "(width=" + std::to_string(w) + ", height=" + std::to_string(h) +
           ", channels=" + std::to_string(c) + ")";
}

std::string image_text(const std::string& kind, int w, int h, int c) {
    return kind + " " + std::to_string(w) + "x" + std::to_string(h) + " image, " + std::to_string(c) +
           (c == 1 ? " channel" : " channels");
}

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

void note_main_grid(const std::vector<gpulab::RecordedLaunch>& launches, check::Rerun& run) {
    if (const gpulab::RecordedLaunch* main = grid2d_grading::main_launch(launches)) run.grid_x = main->grid.x, run.grid_y = main->grid.y;
}

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
            if (recorder) note_main_grid(recorder->launches(), run);
        }
        run.out = d_out.download();
        return run;
    };
}

Bytes random_bytes(std::mt19937_64& engine, std::size_t n, int lo, int hi) {
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

std::string size_name(const ImageSize& s) {
    return std::to_string(s.w) + "x" + std::to_string(s.h) + "x" + std::to_string(s.c);
}

std::vector<ImageSize> sizes_times_channels(const Json& spec, const char* sizes_key) {
    std::vector<ImageSize> cases;
    for (const Json& size : spec.at(sizes_key))
        for (int c : spec.at("channels")) cases.push_back({size.at(0), size.at(1), c});
    return cases;
}

std::vector<KernelCase> for_both_kernels(const std::vector<ImageSize>& sizes) {
    std::vector<KernelCase> cases;
    for (Kernel k : {Kernel::naive, Kernel::tiled})
        for (const ImageSize& s : sizes) cases.push_back({k, s});
    return cases;
}

std::string kernel_case_name(const testing::TestParamInfo<KernelCase>& info) {
    return kernel_name(info.param.kernel) + "_" + size_name(info.param.size);
}

}  // namespace gaussian_blur_grading
