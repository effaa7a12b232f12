#include "gpulab/timing.h"

#include "gpulab/device_resources.h"
#include "gpulab/guarded_array.h"
#include "output_check.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace gpulab {
namespace {

// Writing a buffer twice the size of L2 evicts whatever the previous sample left there.
class L2Flusher {
public:
    L2Flusher() {
        int l2 = 0;
        GPULAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
        if (l2 > 0) scratch_ = DeviceBytes(std::size_t(l2) * 2);
    }
    void flush() {
        if (scratch_.size()) GPULAB_CUDA_CHECK(cudaMemsetAsync(scratch_.get(), 0, scratch_.size()));
    }

private:
    DeviceBytes scratch_;
};

double time_one(const std::function<void()>& launch, DeviceEvent& start, DeviceEvent& stop) {
    start.record();
    launch();
    stop.record();
    GPULAB_CUDA_CHECK(cudaGetLastError());
    stop.synchronize();
    return stop.ms_since(start);
}

}  // namespace

double Samples::quantile(double q) const {
    if (ms.empty()) return 0;
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const double pos = q * double(sorted.size() - 1);
    const std::size_t lo = std::size_t(std::floor(pos)), hi = std::size_t(std::ceil(pos));
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

double Samples::median() const { return quantile(0.5); }

double Samples::relative_spread() const {
    const double m = median();
    return m > 0 ? 0.5 * (quantile(0.75) - quantile(0.25)) / m : 0;
}

std::vector<Samples> time_interleaved(const std::vector<std::function<void()>>& launches,
                                      const TimingOptions& options, const std::vector<LaunchOutput>& outputs) {
    std::unique_ptr<L2Flusher> flusher;
    if (options.flush_l2) flusher = std::make_unique<L2Flusher>();
    // What the student's output held when timing began: the result the test has just checked. Only
    // the student's launch (the first) is held to it; every output is blanked the same way before
    // each sample, so both sides start their samples from the same state.
    DeviceBytes checked;
    const bool check_first = !outputs.empty() && outputs[0].data;
    if (check_first) {
        checked = DeviceBytes(outputs[0].bytes);
        GPULAB_CUDA_CHECK(cudaMemcpy(checked.get(), outputs[0].data, outputs[0].bytes, cudaMemcpyDeviceToDevice));
    }
    DeviceEvent start, stop;
    for (int w = 0; w < options.warmup; ++w)
        for (const auto& launch : launches) time_one(launch, start, stop);
    std::vector<Samples> result(launches.size());
    for (int s = 0; s < options.samples; ++s) {
        for (std::size_t v = 0; v < launches.size(); ++v) {
            const bool blank = v < outputs.size() && outputs[v].data;
            // The blank is the grader's poison, which the checked result also holds in any cell a
            // correct kernel leaves alone (a ghost ring, say).
            if (blank) GPULAB_CUDA_CHECK(cudaMemsetAsync(outputs[v].data, kPoisonByte, outputs[v].bytes));
            if (flusher) flusher->flush();
            result[v].ms.push_back(time_one(launches[v], start, stop));
            if (v != 0 || !check_first) continue;
            if (const std::size_t differing = count_differing_bytes(outputs[0].data, checked.get(), outputs[0].bytes))
                throw UnfaithfulLaunch(v, "timed launch " + std::to_string(s + 1) + " of " + std::to_string(options.samples) +
                                       " left " + std::to_string(differing) + " of " + std::to_string(outputs[0].bytes) +
                                       " output bytes different from the result checked just before timing (the "
                                       "output was blanked before each timed launch). Every launch must compute its "
                                       "whole output: a launch that skips work it did before cannot be timed");
        }
    }
    return result;
}

double copy_bandwidth_gbs(std::size_t bytes, const TimingOptions& options) {
    DeviceBytes from(bytes), to(bytes);
    GPULAB_CUDA_CHECK(cudaMemset(from.get(), 1, bytes));
    const auto samples = time_interleaved(
        {[&] { GPULAB_CUDA_CHECK(cudaMemcpyAsync(to.get(), from.get(), bytes, cudaMemcpyDeviceToDevice)); }},
        options);
    return 2.0 * double(bytes) / (samples[0].median() * 1e6);
}

SpeedVerdict judge_speed(const std::function<void()>& student, const std::function<void()>& reference,
                         double threshold, int max_rounds, const TimingOptions& options, LaunchOutput student_output,
                         LaunchOutput reference_output) {
    SpeedVerdict verdict;
    verdict.threshold = threshold;
    Samples student_all, reference_all;
    for (int round = 1; round <= std::max(1, max_rounds); ++round) {
        std::vector<Samples> samples;
        try {
            samples = time_interleaved({student, reference}, options, {student_output, reference_output});
        } catch (const UnfaithfulLaunch& e) {
            if (e.launch != 0) throw;  // the reference's own launch: a grader problem, not the student's
            verdict.unfaithful = e.what();
            return verdict;
        }
        student_all.ms.insert(student_all.ms.end(), samples[0].ms.begin(), samples[0].ms.end());
        reference_all.ms.insert(reference_all.ms.end(), samples[1].ms.begin(), samples[1].ms.end());
        verdict.rounds = round;
        verdict.student_ms = student_all.median();
        verdict.reference_ms = reference_all.median();
        verdict.fraction = verdict.reference_ms / verdict.student_ms;
        verdict.noise = student_all.relative_spread() + reference_all.relative_spread();
        // A verdict this far from the threshold will not flip on another measurement.
        if (std::fabs(verdict.fraction - threshold) > verdict.noise * verdict.fraction + 0.01) break;
    }
    return verdict;
}

}  // namespace gpulab
