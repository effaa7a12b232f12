// How every speed test reports itself: the same figures, in the same words, in every lab.
#pragma once

#include "gpulab/lab_config.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/timed_work.h"
#include "gpulab/timing.h"

#include <functional>
#include <string>
#include <vector>

namespace gpulab {

struct Throughput {
    double student_gbs = 0, reference_gbs = 0, copy_gbs = 0;
    std::string figure, threshold;  // as recorded for the grade table; a lab may append to the figure
};

// Records the speed figures as test properties (student/reference ms and GB/s, copy GB/s) and the
// grade table's figure ("0.238 ms, 2256 GB/s (78% of copy), 1.00x ref"). `bytes` is what the kernel
// must move at least (each input read once, each output written once); `bar` names what the
// fraction is held to, e.g. "ref tiled".
Throughput record_speed(const SpeedVerdict& verdict, double bytes, double copy_gbs, const std::string& bar = "ref");

// The figure of a speed test whose timed launches did not do the work (verdict.honest() is false): no
// speed is shown (a figure above what the GPU can do is no figure), only why.
inline const char* kNotTheWork = "no speed figure: the timed launch did not do the work";
// The figure where nothing showed other work, but a drawn timed sample could not be checked (verdict.waits()).
inline const char* kNotChecked = "no speed figure: a drawn timed sample could not be checked";

// The grade table's figure of a verdict that is not honest(): kNotChecked where it waits, else kNotTheWork.
const char* no_speed_figure(const SpeedVerdict& verdict);
// Records that figure with `threshold` (record_speed does, for a test that records no other figure).
void record_no_speed(const SpeedVerdict& verdict, const std::string& threshold);

// The failure message of such a test: "<call> earns no speed points. <every problem found>".
std::string dishonest_speed(const std::string& call, const SpeedVerdict& verdict);

// The timing a lab.json section asks for: its "warmup" launches and its "samples".
TimingOptions timing_options_of(const Json& section);

// A speed test's first step, the same in every lab: the student's launch at the timed size runs once under the
// deadline the reference's launch sets (first_launch_under_deadline: what it launched is work.checked, which every
// timed launch must repeat), its errors are reported as `call`'s (check_student_launch), and each kernel it launched
// is recorded as a "student_launch" property. Returns work.checked, for a failure's diagnosis.
const std::vector<RecordedLaunch>& first_timed_launch(TimedWork& work, const std::function<void()>& student,
                                                      const std::function<void()>& reference, const std::string& call);

// The failure of a speed test whose kernel is below its bar, in the words of every lab: "<subject> runs at 0.42x
// <against> (<comparison>). The bar is 0.80x. Measured 2 time(s). <extra>Why: <why>".
std::string below_bar_message(const std::string& subject, const std::string& against, const SpeedVerdict& verdict,
                              const std::string& comparison, const std::string& extra, const std::string& why);

// Fails the test with that message, where the why comes from the GPU's counters on the timed launch `suite`
// `instance` (speed_diagnosis; `launches` where they cannot be read) and is recorded as the test's "diagnosis". Call it
// only once all timing is done: the first diagnosis in a process profiles (a child process under ncu, seconds).
void fail_below_bar(const std::string& subject, const std::string& against, const SpeedVerdict& verdict,
                    const std::string& comparison, const std::string& suite, const std::string& instance,
                    const std::vector<RecordedLaunch>& launches, const std::string& extra = "");

// "0.241 ms = 2230 GB/s against 0.238 ms = 2256 GB/s; a device-to-device copy moves 2890 GB/s on this
// GPU", for a failure message.
std::string speed_comparison(const SpeedVerdict& verdict, const Throughput& throughput);

}  // namespace gpulab
