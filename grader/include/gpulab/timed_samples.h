// Which timed samples of a series are profiled, and reading them (issue 43, item 1; gpu_profile.h says why).
//
// time_interleaved (timing.h) draws, when a series starts, which samples of each launch to profile:
//  - the student's launch of a timed launch whose samples are compared with CPU execution mode's count
//    (counted_work.h): drawn_samples_for(n) of its n samples, so that a launch doing other work on more than half of
//    them is caught with probability at least 99%. Compared: where the count was handed over (the speed test then
//    compares them itself), or where lab.json names a test that confirms this one after the count ends
//    ("confirmed_by": Technique.SameWorkOnGpu; the count runs beside the timed tests). Otherwise one (for
//    Report.GpuProfile's row);
//  - the reference's and the expert's: one, for the rows beside the student's, until one was read with every metric.
// The first sample of a (launch, role) this process reads is read with every metric (CounterList::full), the others
// with the compared ones only. A drawn sample is not timed (its replays are not the kernel's time); the student's is
// watched, audited and checked like any other (timing.cpp).
#pragma once

#include "gpulab/gpu_profile.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/timed_work.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace gpulab {

class ProfiledSamples {
public:
    // `roles[i]`: the role of the series' launch i ("yours", "reference", "expert"; "" where it is never profiled);
    // `work`: the timed launch (suite, instance, call); `samples`: the series' length. Nothing is drawn without a
    // work that names its timed launch, or where this process cannot read counters (the machine's reason is noted).
    ProfiledSamples(const TimedWork* work, const std::vector<std::string>& roles, int samples);

    bool drawn(std::size_t launch, int sample) const;

    // Runs `launch` (the series' launch `index`) as timed sample `sample` (0-based) under the profiler, recording its
    // launches and calls into `launches`/`calls` (for the audit); the read joins this process's samples.
    void run(std::size_t index, int sample, const std::function<void()>& launch, std::vector<RecordedLaunch>& launches,
             std::vector<RecordedCall>& calls);

    // A watched (timed, unprofiled) sample of launch `index` ran `kernels` kernels. A drawn sample of a launch that
    // ran more than the grader profiles in one launch (kMaxProfiledKernels) is not replayed at all: it runs
    // unprofiled and counts as one the launch kept from being profiled.
    void saw_kernels(std::size_t index, std::size_t kernels);
    // Whether one of the student's drawn samples could not be profiled because of the launch.
    bool yours_at_fault() const;

    // The samples this series read, in order.
    const std::vector<ProfiledLaunch>& read() const { return read_; }
    // How many of the student's samples were drawn, of how many; "" where none: "6 of 21".
    std::string drawn_of_yours() const;
    // The machine's reason no sample could be read here, where one was to be drawn ("" otherwise).
    const std::string& unreadable() const { return unreadable_; }

private:
    const TimedWork* work_;
    std::vector<std::string> roles_;
    int samples_;
    std::vector<std::set<int>> drawn_;  // per launch
    std::vector<std::size_t> most_kernels_;  // per launch: the most kernels a watched sample ran
    std::vector<ProfiledLaunch> read_;
    std::string unreadable_;
};

// After a timed series: the student's drawn samples against CPU execution mode's count of the same launch
// (gpu_profile.h, check_drawn_sample). "" when every drawn sample agrees, when none was drawn, or when there is no
// count to compare with; else the message that voids the speed points (a disagreement, or a sample the launch kept
// from being profiled: more kernels than the grader profiles, a kernel that failed under replay).
std::string drawn_samples_verdict(const TimedWork& work, const std::vector<ProfiledLaunch>& samples);

// Records the current test's drawn samples so far, this series' among them (property "drawn_counters", handed to
// later processes by gpulab-grade), and where counters could not be read here, why ("drawn_counters_unavailable").
void record_drawn_samples(const ProfiledSamples& series);

}  // namespace gpulab
