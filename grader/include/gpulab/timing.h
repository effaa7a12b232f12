// Kernel timing by the rules of DESIGN.md: CUDA events around the launch only, warm-up, at least
// ten samples, the median, an optional L2 flush between samples, and the student's kernel
// interleaved with the reference's in one process so both see the same clocks and neighbours.
#pragma once

#include "gpulab/timed_work.h"

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpulab {

struct TimingOptions {
    int warmup = 3;
    int samples = 21;
    bool flush_l2 = false;  // worth it when the working set is within a few times the L2 size
    // The role of each launch of a series whose samples may be drawn and profiled ("yours", "reference", "expert";
    // "" or missing: never profiled): timed_samples.h. judge_speed sets {"yours", "reference"}.
    std::vector<std::string> profile_roles;
};

struct Samples {
    std::vector<double> ms;
    double median() const;
    double quantile(double q) const;
    // Half the interquartile range over the median: the relative noise of this series.
    double relative_spread() const;
};

// The device buffer a timed launch writes. Where given, it is blanked with the grader's poison before
// every timed launch (outside the timed span). The first launch's output (the student's) must then
// hold exactly what it held when timing began, the result the test has just checked: a launch that
// skips its work when called again with the same buffers cannot pass for a fast one.
struct LaunchOutput {
    void* data = nullptr;
    std::size_t bytes = 0;
};

// Thrown by time_interleaved when a timed launch did not rewrite its output as checked.
class UnfaithfulLaunch : public std::runtime_error {
public:
    UnfaithfulLaunch(std::size_t launch, const std::string& what) : std::runtime_error(what), launch(launch) {}
    std::size_t launch;  // its index in the list given to time_interleaved
};

// Runs each launch `warmup` times, then `samples` rounds of A, B, A, B ... timing each launch alone.
// `outputs`, when not empty, has one entry per launch (LaunchOutput{} for none). A launch that fails
// throws CudaError. Without `work`, a first launch that does not rewrite its output throws UnfaithfulLaunch.
// With `work`, each round starts from fresh inputs and the first launch (the student's) is held to it
// (timed_work.h): what it found wrong goes into `honesty` (too_fast is judge_speed's to decide). With `work` and
// options.profile_roles, some samples are drawn and profiled instead of timed (timed_samples.h), the student's
// warm-ups are audited too, and `drawn` gets what the student's drawn samples showed ("" when nothing voids them).
std::vector<Samples> time_interleaved(const std::vector<std::function<void()>>& launches,
                                      const TimingOptions& options, const std::vector<LaunchOutput>& outputs = {},
                                      const TimedWork* work = nullptr, Honesty* honesty = nullptr,
                                      std::string* drawn = nullptr);

// Device-to-device copy bandwidth in GB/s (bytes read + bytes written), measured now.
double copy_bandwidth_gbs(std::size_t bytes, const TimingOptions& options);

// How SpeedVerdict::drawn begins where a drawn sample could not be profiled because of the launch (more kernels than
// the grader profiles, a kernel that failed under replay), as opposed to one whose counters showed other work.
inline constexpr const char* kPointsWait = "The speed points wait: ";

// A throughput verdict: student against reference, re-measured while it is within noise of the threshold.
struct SpeedVerdict {
    double student_ms = 0, reference_ms = 0;
    double fraction = 0;   // reference_ms / student_ms: 1.0 means as fast as the reference
    double noise = 0;      // relative noise of the fraction, from the samples' spread
    double threshold = 0;
    int rounds = 0;
    // Set when a timed launch of the student's did not recompute its output: the timing is void.
    std::string unfaithful;
    // With a TimedWork: what the student's timed launches did that voids their speed.
    Honesty honesty;
    // What the student's drawn samples showed that voids it: other work than CPU execution mode counted, or a launch
    // that kept its sample from being profiled (timed_samples.h). "" when nothing.
    std::string drawn;
    // The drawn sample's verdict is only that it could not be profiled (kPointsWait): the launch may well have done
    // the work; it could not be checked.
    bool waits() const;
    bool honest() const { return unfaithful.empty() && honesty.clean() && drawn.empty(); }
    bool passed() const { return honest() && fraction >= threshold; }
};

// Times student and reference interleaved; while |fraction - threshold| is within the noise and
// rounds remain, measures again and pools the samples. With outputs given, every timed launch must
// recompute its output (see LaunchOutput); the student's failure to is reported in `unfaithful`.
// With `work`, every timed launch of the student's is held to it (timed_work.h), and a verdict whose
// launches were not honest is not measured again.
SpeedVerdict judge_speed(const std::function<void()>& student, const std::function<void()>& reference,
                         double threshold, int max_rounds, const TimingOptions& options,
                         LaunchOutput student_output = {}, LaunchOutput reference_output = {},
                         const TimedWork* work = nullptr);

}  // namespace gpulab
