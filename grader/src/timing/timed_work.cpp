#include "gpulab/timed_work.h"

#include "gpulab/cuda_check.h"
#include "gpulab/device_facts.h"
#include "gpulab/device_resources.h"
#include "gpulab/format.h"
#include "gpulab/launch_deadline.h"
#include "gpulab/launch_geometry.h"
#include "gpulab/same_as_checked.h"

#include <cstring>

namespace gpulab {
namespace {

// Constant memory holds at most 64 KiB: a launch may upload its coefficients there (cudaMemcpyToSymbol),
// which is no place to put a computed result.
constexpr std::size_t kConstantMemoryBytes = 64 * 1024;

bool allowed_call(const RecordedCall& call) {
    if (call.name != "cudaMemcpyToSymbol" && call.name != "cudaMemcpyToSymbolAsync") return false;
    return std::strtoull(call.detail.c_str(), nullptr, 10) <= kConstantMemoryBytes &&
           call.detail.find("host to device") != std::string::npos;
}

bool same_shape(const RecordedLaunch& a, const RecordedLaunch& b) {
    return a.kernel == b.kernel && a.block.x == b.block.x && a.block.y == b.block.y && a.block.z == b.block.z &&
           a.shared_bytes() == b.shared_bytes();
}

std::string launch_text(const RecordedLaunch& l) {
    return kernel_name_of(l.kernel) + " with block " + std::to_string(l.block.x) + "x" + std::to_string(l.block.y) + "x" +
           std::to_string(l.block.z) + " and " + std::to_string(l.shared_bytes()) + " B of shared memory per block";
}

}  // namespace

std::string Honesty::explain() const {
    std::string text;
    for (const std::string* part : {&wrong_result, &too_fast, &unapproved})
        if (!part->empty()) text += (text.empty() ? "" : " ") + *part;
    return text;
}

void set_memory_floor(TimedWork& work, double bytes, double copy_gbs, double margin) {
    if (copy_gbs <= 0) return;
    work.floor_ms = bytes / (margin * copy_gbs * 1e6);
    work.floor_basis = fixed(bytes / 1e6, 0) + " MB that must be read and written, at " + fixed(margin, 2) +
                       "x the " + fixed(copy_gbs, 0) + " GB/s of a device-to-device copy measured in this run";
}

double peak_tflops(const std::string& arithmetic) {
    const DeviceFacts& d = device_facts();
    if (!d.available || d.emulated || d.sm_clock_mhz <= 0) return 0;
    // Lanes per SM that do one operation of this arithmetic per clock. FP32: Volta, Turing and A100 64; GA10x,
    // Ada, Hopper and Blackwell 128. FP64: the data-centre parts (P100, V100, A100: 32; H100, B200: 64), the
    // others 2 (1/64 of FP32). INT32: 64 from Volta on.
    const int cc = d.compute_major * 10 + d.compute_minor;
    int lanes = 0;
    if (arithmetic == "fp32") lanes = (cc == 70 || cc == 72 || cc == 75 || cc == 80) ? 64 : cc >= 86 ? 128 : 0;
    else if (arithmetic == "fp64") lanes = (cc == 60 || cc == 70 || cc == 80) ? 32 : (cc == 90 || cc == 100) ? 64 : cc >= 61 ? 2 : 0;
    else if (arithmetic == "int32") lanes = cc >= 70 ? 64 : 0;
    // A fused multiply-add counts as two operations, as peak figures do.
    return double(d.sm_count) * lanes * 2.0 * d.sm_clock_mhz * 1e6 / 1e12;
}

double fp32_peak_tflops() { return peak_tflops("fp32"); }

std::string too_fast_message(const TimedWork& work, double median_ms) {
    if (work.floor_ms <= 0 || median_ms >= work.floor_ms) return "";
    return "Faster than this GPU can do the work: the timed launch did not compute it (" + fixed(median_ms, 3) +
           " ms, where the work takes at least " + fixed(work.floor_ms, 3) + " ms: " + work.floor_basis + ").";
}

void set_compute_floor(TimedWork& work, double flops) {
    const double peak = fp32_peak_tflops();
    if (peak <= 0) return;
    work.floor_ms = flops / (peak * 1e9);
    work.floor_basis = fixed(flops / 1e9, 0) + " GFLOP at this GPU's FP32 peak of " + fixed(peak, 1) + " TFLOP/s (" +
                       std::to_string(device_facts().sm_count) + " SMs at " + std::to_string(device_facts().sm_clock_mhz) +
                       " MHz)";
}

std::vector<RecordedLaunch> probe_launches(const std::function<void()>& launch) {
    LaunchRecorder recorder;
    launch();
    return recorder.launches();
}

std::string audit_timed_launch(const TimedWork& work, const std::vector<RecordedLaunch>& launches,
                               const std::vector<RecordedCall>& calls) {
    for (const RecordedCall& call : calls)
        if (!allowed_call(call))
            return "The timed launch called " + call.describe() +
                   ": a launch function only launches its kernels. Copies, waits for the device and allocations "
                   "belong outside it (a launch that copies data out and back, or waits to compute on the host, "
                   "is not timing the kernel).";
    if (launches.empty())
        return "The timed launch ran no kernel at all on the GPU: its output came from somewhere else.";
    for (const RecordedLaunch& l : launches) {
        bool approved = work.approved.empty();  // nothing to hold it to (the expert's launch, on the roofline)
        for (const RecordedLaunch& a : work.approved) approved = approved || same_shape(l, a);
        if (!approved)
            return "The timed launch is not the kernel the technique checks approved: at " + work.approved_at +
                   " your launch function ran " + launches_in_words(work.approved, launch_text) + "; at the timed size it ran " +
                   launch_text(l) + ". Use the same kernel and block at every size: the speed points are for "
                   "the technique that was checked.";
    }
    if (work.checked.empty()) return "";
    std::vector<RecordedLaunch> classified = launches;
    classify_arguments(classified);
    return differs_from_checked({work.checked, work.checked_calls, work.call}, classified, calls);
}

bool name_after_timed_launch(TimedWork& work) {
    for (const GeometryCheck& check : timed_launches())
        if (check.call == work.call) {
            work.suite = check.suite;
            work.instance = check.instance;
            return true;
        }
    return false;
}

void first_launch_under_deadline(TimedWork& work, const std::function<void()>& student,
                                 const std::function<void()>& reference) {
    work.reference_ms = time_reference_once(reference);
    work.deadline_ms = deadline_ms(work.reference_ms);
    LaunchDeadline deadline(work.deadline_ms, too_slow_message(work.call, work.deadline_ms, work.reference_ms));
    {
        LaunchRecorder recorder;
        student();
        work.checked = recorder.launches();
        work.checked_calls = recorder.calls();
    }
    cudaDeviceSynchronize();
    classify_arguments(work.checked);  // the launch's buffers are the caller's: still allocated
}

std::string too_slow_message(const std::string& call, double limit_ms, double reference_ms) {
    return "too slow to time: " + call + " was still running after " + fixed(limit_ms / 1000, 1) + " s (" +
           (reference_ms > 0 ? "the reference's kernel takes " + fixed(reference_ms, 3) + " ms for the same work; " : "") +
           "the limit is " + fixed(kDeadlineMultiple, 0) + " times that, and at least " + fixed(kDeadlineFloorMs / 1000, 0) + " s) and was stopped. A launch that computes on the host, or "
           "a kernel this far from the reference's, earns no speed points; the correctness tests say whether it is right.";
}

}  // namespace gpulab
