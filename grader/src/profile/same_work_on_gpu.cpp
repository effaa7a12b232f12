#include "gpulab/same_work_on_gpu.h"

#include "gpulab/counted_work.h"
#include "gpulab/format.h"
#include "gpulab/gpu_profile.h"
#include "gpulab/grader_test.h"
#include "gpulab/handed_over.h"
#include "gpulab/lab_config.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gpulab {
namespace {

const char* const kId = "Technique.SameWorkOnGpu";

// The speed tests lab.json lists this test after: the ones that draw its samples.
std::vector<std::string> speed_tests() {
    const Json* entry = lab_test_entry(kId);
    return entry && entry->contains("after") ? entry->at("after").get<std::vector<std::string>>()
                                             : std::vector<std::string>{};
}

// Every count handed over, in the order the counted test recorded them.
std::vector<CountedWork> counted_launches() {
    std::vector<CountedWork> out;
    for (const std::string& text : handed_over_property("timed_count")) {
        const Json j = Json::parse(text, nullptr, false);
        if (!j.is_object()) continue;
        for (const auto& [key, value] : j.items()) out.push_back(counted_work_of(value));
    }
    return out;
}

// Why some of the speed tests drew nothing without the submission's doing: the first of them that was not run for
// the machine's or the user's reasons (--no-timing, --time-only, no GPU); "" where each ran or was not counted.
std::string speed_test_left_out(const std::vector<std::string>& tests) {
    for (const std::string& t : tests) {
        const std::string because = handed_over_not_run_because(t);
        if (handed_over_result(t) == "skipped" && because.rfind("not counted", 0) != 0)
            return t + " " + (because.empty() ? "was not run" : because);
    }
    return "";
}

std::string range_of(const std::vector<double>& v) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return fixed(*lo, 2) + (*hi - *lo >= 0.005 ? "-" + fixed(*hi, 2) : "");
}

void check_same_work_on_gpu() {
    const GpuProfile& profile = gpu_profile();
    const std::vector<std::string> timed_by = speed_tests();
    const std::string left_out = speed_test_left_out(timed_by);
    // Not the submission's doing: no GPU timed this grading, timing was left out, or the counters may not be read.
    if (!profile.available && (!left_out.empty() || profile.why.find("no timed sample") == std::string::npos)) {
        testing::Test::RecordProperty("skip_holds_back", "no");
        GTEST_SKIP() << "no timed sample was profiled on a GPU: " << (left_out.empty() ? profile.why : left_out);
    }
    const std::vector<CountedWork> counted = counted_launches();
    if (counted.empty()) {
        testing::Test::RecordProperty("skip_holds_back", "no");
        GTEST_SKIP() << "CPU execution mode's count of the timed launches was not handed over: the counted technique "
                        "test did not count them in this grading (CPU execution mode is not built here, or it was not run)";
    }
    std::vector<std::string> wrong, measured, not_drawn;
    for (const CountedWork& c : counted) {
        const std::vector<const ProfiledLaunch*> drawn = profile.drawn(c.suite, c.instance, "yours");
        const TimedSeries series = timed_series_of(counted_work_key(c.suite, c.instance));
        if (series == TimedSeries::stopped_by_the_launch) {
            // The samples drawn before the stop may agree; the ones after it, which would have been drawn too, were
            // never seen, and a launch that changed its work between calls is why the series stopped.
            wrong.push_back(c.call + ": its speed test stopped timing it when a timed launch failed its audit or could "
                            "not be profiled (the speed test says why), so the timed samples after that one were never "
                            "drawn from and its work on them was never seen");
            continue;
        }
        if (drawn.empty()) {
            // Its speed test was left out (--time-only): the others still decide, where they were compared. Not a
            // launch that was timed and drew nothing.
            if (!left_out.empty() && series == TimedSeries::not_timed) {
                not_drawn.push_back(c.call);
                continue;
            }
            wrong.push_back(c.call + ": no timed sample of it was profiled on the GPU (its speed test ended before it "
                            "drew one: the speed test says why), so its work there was never seen");
            continue;
        }
        std::vector<double> gpu, gpu_shared;
        double cpu_shared = c.shared_per_output;
        std::string shared_per = c.per;
        for (const ProfiledLaunch* l : drawn) {
            const DrawnSampleVerdict v = check_drawn_sample(*l, c);
            if (!v.agree) wrong.push_back(v.message);
            else if (!l->error.empty()) {  // the machine's reason, not the launch's
                testing::Test::RecordProperty("skip_holds_back", "no");
                GTEST_SKIP() << "the GPU's counters were not read: " << l->error;
            }
            if (v.compared) gpu.push_back(v.gpu);
            if (v.compared && !std::isnan(v.gpu_shared)) gpu_shared.push_back(v.gpu_shared);
            if (v.compared && v.shared_per_staged) cpu_shared = v.cpu_shared, shared_per = "value staged";
            std::printf("[same work] %s, %s: global %s per %s: GPU %.3f, CPU execution mode %.3f%s\n", c.call.c_str(),
                        l->which().c_str(), c.element.c_str(), c.per.c_str(), v.gpu, v.cpu,
                        std::isnan(v.gpu_shared) ? ""
                                                 : (", shared per " + std::string(v.shared_per_staged ? "value staged" : c.per) +
                                                    ": GPU " + fixed(v.gpu_shared, 3) + ", CPU " + fixed(v.cpu_shared, 3)).c_str());
        }
        if (!gpu.empty())
            measured.push_back(c.suite + " " + c.instance + ": " + std::to_string(gpu.size()) + " drawn samples, GPU " +
                               range_of(gpu) + " / CPU " + fixed(c.global_per_output, 2) + " " + c.element +
                               " reads per " + c.per +
                               (gpu_shared.empty() ? "" : ", shared GPU " + range_of(gpu_shared) + " / CPU " +
                                                              fixed(cpu_shared, 2) + " reads per " + shared_per));
    }
    if (measured.empty() && wrong.empty() && !not_drawn.empty()) {
        testing::Test::RecordProperty("skip_holds_back", "no");
        GTEST_SKIP() << "no timed sample of " << not_drawn.front() << " was drawn: " << left_out;
    }
    std::string figure;
    for (const std::string& m : measured) figure += (figure.empty() ? "" : "; ") + m;
    if (!not_drawn.empty()) figure += "; not drawn (" + left_out + "): " + not_drawn.front() +
                                      (not_drawn.size() > 1 ? " and " + std::to_string(not_drawn.size() - 1) + " more" : "");
    record_figure(figure.empty() ? "nothing compared" : figure, drawn_sample_rule());
    for (const std::string& w : wrong) ADD_FAILURE() << w;
}

class SameWorkOnGpuTest : public testing::Test {
public:
    void TestBody() override { check_same_work_on_gpu(); }
};

}  // namespace

void register_same_work_on_gpu() {
    if (!lab_lists_test(kId)) return;
    testing::RegisterTest("Technique", "SameWorkOnGpu", nullptr, nullptr, __FILE__, __LINE__,
                          []() -> testing::Test* { return new SameWorkOnGpuTest; });
}

}  // namespace gpulab
