#include "gpulab/timing.h"

#include "gpulab/counted_work.h"
#include "gpulab/grader_test.h"
#include "gpulab/device_resources.h"
#include "gpulab/format.h"
#include "gpulab/fresh_inputs.h"
#include "gpulab/gpu_profile.h"
#include "gpulab/guarded_array.h"
#include "gpulab/launch_deadline.h"
#include "gpulab/timed_samples.h"
#include "gpulab/output_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
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

// One timed launch of the student's under a TimedWork: watched (its launches and calls recorded) and under
// the deadline; the audit of what it did goes into `unapproved` (the first problem only).
double time_watched(const std::function<void()>& launch, DeviceEvent& start, DeviceEvent& stop, const TimedWork& work,
                    std::string& unapproved, ProfiledSamples& profiled) {
    std::unique_ptr<LaunchDeadline> deadline;
    if (work.deadline_ms > 0)
        deadline = std::make_unique<LaunchDeadline>(work.deadline_ms,
                                                    too_slow_message(work.call, work.deadline_ms, work.reference_ms));
    std::vector<RecordedLaunch> launches;
    std::vector<RecordedCall> calls;
    start.record();
    {
        LaunchRecorder recorder;
        launch();
        launches = recorder.launches();
        calls = recorder.calls();
    }
    stop.record();
    GPULAB_CUDA_CHECK(cudaGetLastError());
    stop.synchronize();
    if (unapproved.empty()) unapproved = audit_timed_launch(work, launches, calls);
    profiled.saw_kernels(0, launches.size());
    return stop.ms_since(start);
}

// What renewing inputs and checking outputs cost this test so far, in wall-clock ms: recorded with every
// timing (property "fresh_and_check_ms"), so the price of honest timing per lab can be read off the results.
double add_fresh_and_check_ms(double ms) {
    static std::string test;
    static double total = 0;
    const std::string name = current_test_name();
    if (name != test) test = name, total = 0;
    total += ms;
    return total;
}

double wall_ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// A seed no earlier round of this process used: every sample of every call draws a new problem.
std::uint64_t next_problem_seed(std::uint64_t base) {
    static std::uint64_t drawn = 0;
    return fresh_hash(base, ++drawn);
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
                                      const TimingOptions& options, const std::vector<LaunchOutput>& outputs,
                                      const TimedWork* work, Honesty* honesty, std::string* drawn) {
    Honesty found;
    double fresh_ms = 0;
    std::unique_ptr<L2Flusher> flusher;
    if (options.flush_l2) flusher = std::make_unique<L2Flusher>();
    // What the student's output held when timing began: the result the test has just checked. Only
    // the student's launch (the first) is held to it; every output is blanked the same way before
    // each sample, so both sides start their samples from the same state.
    DeviceBytes checked;
    const bool check_first = !work && !outputs.empty() && outputs[0].data;
    if (check_first) {
        checked = DeviceBytes(outputs[0].bytes);
        GPULAB_CUDA_CHECK(cudaMemcpy(checked.get(), outputs[0].data, outputs[0].bytes, cudaMemcpyDeviceToDevice));
    }
    DeviceEvent start, stop;
    // Which samples are profiled instead of timed: drawn now, from a source the run's seed does not give.
    ProfiledSamples profiled(work, options.profile_roles, options.samples);
    // The student's warm-ups are audited like its samples: a launch function may change what it does at any call.
    for (int w = 0; w < options.warmup; ++w)
        for (std::size_t v = 0; v < launches.size(); ++v) {
            if (work && v == 0) time_watched(launches[v], start, stop, *work, found.unapproved, profiled);
            else time_one(launches[v], start, stop);
        }
    std::vector<Samples> result(launches.size());
    for (int s = 0; s < options.samples; ++s) {
        // A problem no launch has seen, written outside the timed window: a remembered answer has nothing to hit.
        if (work && work->renew) {
            const auto renewing = std::chrono::steady_clock::now();
            work->renew(next_problem_seed(work->seed));
            GPULAB_CUDA_CHECK(cudaDeviceSynchronize());  // its cost is its own, not the timed launch's wait
            fresh_ms += wall_ms_since(renewing);
        }
        for (std::size_t v = 0; v < launches.size(); ++v) {
            const bool blank = v < outputs.size() && outputs[v].data;
            // The blank is the grader's poison, which the checked result also holds in any cell a
            // correct kernel leaves alone (a ghost ring, say).
            if (blank) GPULAB_CUDA_CHECK(cudaMemsetAsync(outputs[v].data, kPoisonByte, outputs[v].bytes));
            if (flusher) flusher->flush();
            if (profiled.drawn(v, s)) {
                // Profiled instead of timed: its replays are not the kernel's time. The student's is audited and
                // checked below like every sample.
                std::vector<RecordedLaunch> recorded;
                std::vector<RecordedCall> calls;
                profiled.run(v, s, launches[v], recorded, calls);
                if (work && v == 0 && found.unapproved.empty())
                    found.unapproved = audit_timed_launch(*work, recorded, calls);
            } else if (work && v == 0) {
                result[v].ms.push_back(time_watched(launches[v], start, stop, *work, found.unapproved, profiled));
            }
            if (work && v == 0) {
                // One wrong answer voids the timing (this round ends, for the speed figure, and no other starts).
                const auto checking = std::chrono::steady_clock::now();
                std::string wrong;
                if (found.wrong_result.empty() && work->check) wrong = work->check();
                fresh_ms += wall_ms_since(checking);
                if (!wrong.empty())
                    found.wrong_result = "The timed launch returned a wrong result for fresh inputs (sample " +
                                         std::to_string(s + 1) + "): " + wrong + ".";
                continue;
            }
            if (profiled.drawn(v, s)) continue;
            result[v].ms.push_back(time_one(launches[v], start, stop));
            if (v != 0 || !check_first) continue;
            if (const std::size_t differing = count_differing_bytes(outputs[0].data, checked.get(), outputs[0].bytes))
                throw UnfaithfulLaunch(v, "timed launch " + std::to_string(s + 1) + " of " + std::to_string(options.samples) +
                                       " left " + std::to_string(differing) + " of " + std::to_string(outputs[0].bytes) +
                                       " output bytes different from the result checked just before timing (the "
                                       "output was blanked before each timed launch). Every launch must compute its "
                                       "whole output: a launch that skips work it did before cannot be timed");
        }
        // A launch that did not do the work is not timed further: a host computation would take seconds a sample.
        // Nor one whose drawn sample could not be profiled for its own reason: its verdict is decided, and more
        // drawn samples of it would only cost their replays (a launch of hundreds of kernels: seconds each).
        if (!found.wrong_result.empty() || !found.unapproved.empty() || profiled.yours_at_fault()) break;
    }
    if (honesty) *honesty = found;
    if (work) testing::Test::RecordProperty("fresh_and_check_ms", fixed(add_fresh_and_check_ms(fresh_ms), 1));
    record_drawn_samples(profiled);
    if (work && !work->suite.empty())
        note_timed_launch(counted_work_key(work->suite, work->instance),
                          !found.unapproved.empty() || profiled.yours_at_fault() ? TimedSeries::stopped_by_the_launch
                                                                                : TimedSeries::timed);
    if (work && drawn) *drawn = drawn_samples_verdict(*work, profiled.read());
    if (const std::string of = profiled.drawn_of_yours(); !of.empty())
        testing::Test::RecordProperty("drawn_samples", of + " timed samples drawn at random and profiled");
    return result;
}

double time_reference_once(const std::function<void()>& launch) {
    DeviceEvent start, stop;
    launch();  // a warm-up: module loading and a cold cache are not the kernel's time
    return time_one(launch, start, stop);
}

double copy_bandwidth_gbs(std::size_t bytes, const TimingOptions& options) {
    DeviceBytes from(bytes), to(bytes);
    GPULAB_CUDA_CHECK(cudaMemset(from.get(), 1, bytes));
    const auto samples = time_interleaved(
        {[&] { GPULAB_CUDA_CHECK(cudaMemcpyAsync(to.get(), from.get(), bytes, cudaMemcpyDeviceToDevice)); }},
        options);
    return 2.0 * double(bytes) / (samples[0].median() * 1e6);
}

bool SpeedVerdict::waits() const {
    return unfaithful.empty() && honesty.clean() && drawn.rfind(kPointsWait, 0) == 0;
}

SpeedVerdict judge_speed(const std::function<void()>& student, const std::function<void()>& reference,
                         double threshold, int max_rounds, const TimingOptions& options, LaunchOutput student_output,
                         LaunchOutput reference_output, const TimedWork* work) {
    SpeedVerdict verdict;
    verdict.threshold = threshold;
    Samples student_all, reference_all;
    for (int round = 1; round <= std::max(1, max_rounds); ++round) {
        std::vector<Samples> samples;
        TimingOptions drawn_options = options;
        if (work && drawn_options.profile_roles.empty()) drawn_options.profile_roles = {"yours", "reference"};
        try {
            samples = time_interleaved({student, reference}, drawn_options, {student_output, reference_output}, work,
                                       &verdict.honesty, &verdict.drawn);
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
        // No sample timed (the first one drawn, and the launch's audit ended the round there): no speed at all.
        if (work && !student_all.ms.empty()) verdict.honesty.too_fast = too_fast_message(*work, verdict.student_ms);
        if (!verdict.honesty.clean() || !verdict.drawn.empty()) break;  // no speed to measure more precisely
        // A verdict this far from the threshold will not flip on another measurement.
        if (std::fabs(verdict.fraction - threshold) > verdict.noise * verdict.fraction + 0.01) break;
    }
    return verdict;
}

}  // namespace gpulab
