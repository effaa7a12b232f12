#include "gpulab/speed_report.h"

#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/gpu_profile_report.h"
#include "gpulab/grader_test.h"

namespace gpulab {

Throughput record_speed(const SpeedVerdict& verdict, double bytes, double copy_gbs, const std::string& bar) {
    Throughput t{bytes / (verdict.student_ms * 1e6), bytes / (verdict.reference_ms * 1e6), copy_gbs, "", ""};
    if (!verdict.honest()) {
        t.figure = no_speed_figure(verdict);
        t.threshold = "fresh inputs, a possible speed, the approved kernel";
        testing::Test::RecordProperty("copy_gbs", fixed(t.copy_gbs, 0));
        record_figure(t.figure, t.threshold);
        return t;
    }
    testing::Test::RecordProperty("student_ms", fixed(verdict.student_ms, 4));
    testing::Test::RecordProperty("reference_ms", fixed(verdict.reference_ms, 4));
    testing::Test::RecordProperty("student_gbs", fixed(t.student_gbs, 0));
    testing::Test::RecordProperty("reference_gbs", fixed(t.reference_gbs, 0));
    testing::Test::RecordProperty("copy_gbs", fixed(t.copy_gbs, 0));
    testing::Test::RecordProperty("rounds", std::to_string(verdict.rounds));
    t.figure = fixed(verdict.student_ms, 3) + " ms, " + fixed(t.student_gbs, 0) + " GB/s (" +
               fixed(100 * t.student_gbs / t.copy_gbs, 0) + "% of copy), " + fixed(verdict.fraction, 2) + "x ref";
    t.threshold = ">= " + fixed(verdict.threshold, 2) + "x " + bar;
    record_figure(t.figure, t.threshold);
    return t;
}

const char* no_speed_figure(const SpeedVerdict& verdict) { return verdict.waits() ? kNotChecked : kNotTheWork; }

void record_no_speed(const SpeedVerdict& verdict, const std::string& threshold) {
    record_figure(no_speed_figure(verdict), threshold);
}

std::string dishonest_speed(const std::string& call, const SpeedVerdict& verdict) {
    // The drawn sample's verdict too: without it a launch caught by its counters was told nothing but the points.
    std::string why = verdict.unfaithful.empty() ? "" : verdict.unfaithful + ". ";
    why += verdict.honesty.explain();
    if (!verdict.drawn.empty()) why += (why.empty() ? "" : " ") + verdict.drawn;
    return call + " earns no speed points. " + why;
}

TimingOptions timing_options_of(const Json& section) {
    TimingOptions options;
    options.warmup = section.at("warmup");
    options.samples = section.at("samples");
    return options;
}

const std::vector<RecordedLaunch>& first_timed_launch(TimedWork& work, const std::function<void()>& student,
                                                      const std::function<void()>& reference, const std::string& call) {
    first_launch_under_deadline(work, student, reference);
    check_student_launch(call);
    for (const RecordedLaunch& launch : work.checked) testing::Test::RecordProperty("student_launch", launch.describe());
    return work.checked;
}

std::string below_bar_message(const std::string& subject, const std::string& against, const SpeedVerdict& verdict,
                              const std::string& comparison, const std::string& extra, const std::string& why) {
    return subject + " runs at " + fixed(verdict.fraction, 2) + "x " + against + " (" + comparison + "). The bar is " +
           fixed(verdict.threshold, 2) + "x. Measured " + std::to_string(verdict.rounds) + " time(s). " + extra +
           "Why: " + why;
}

void fail_below_bar(const std::string& subject, const std::string& against, const SpeedVerdict& verdict,
                    const std::string& comparison, const std::string& suite, const std::string& instance,
                    const std::vector<RecordedLaunch>& launches, const std::string& extra) {
    const std::string why = speed_diagnosis(suite, instance, launches);
    testing::Test::RecordProperty("diagnosis", why);
    GPULAB_EXPECT(false) << below_bar_message(subject, against, verdict, comparison, extra, why);
}

std::string speed_comparison(const SpeedVerdict& verdict, const Throughput& t) {
    return fixed(verdict.student_ms, 3) + " ms = " + fixed(t.student_gbs, 0) + " GB/s against " +
           fixed(verdict.reference_ms, 3) + " ms = " + fixed(t.reference_gbs, 0) +
           " GB/s; a device-to-device copy moves " + fixed(t.copy_gbs, 0) + " GB/s on this GPU";
}

}  // namespace gpulab
