// The write side of counted_work.h: a counted technique test records what it counted of each timed launch, per
// output element, in its test property "timed_count" (gpulab-grade hands it to the graders that run later). The
// read side, counted_work(), is in counted_work_lookup.cpp.
#include "gpulab/counted_work.h"
#include "gpulab/grader_test.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpulab {
namespace {

// JSON has no NaN: a figure that was not counted is written as null and read back as NaN.
nlohmann::json figure(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }
double figure_of(const nlohmann::json& j, const char* key) {
    const auto found = j.find(key);
    return found == j.end() || !found->is_number() ? std::numeric_limits<double>::quiet_NaN() : found->get<double>();
}

}  // namespace

nlohmann::json to_json(const CountedWork& w) {
    return {{"suite", w.suite},
            {"instance", w.instance},
            {"call", w.call},
            {"kernel", w.kernel},
            {"element", w.element},
            {"per", w.per},
            {"outputs", figure(w.outputs)},
            {"element_bytes", figure(w.element_bytes)},
            {"global_per_output", figure(w.global_per_output)},
            {"shared_per_output", figure(w.shared_per_output)},
            {"shared_per_staged", figure(w.shared_per_staged)}};
}

CountedWork counted_work_of(const nlohmann::json& j) {
    CountedWork w;
    w.suite = j.value("suite", "");
    w.instance = j.value("instance", "");
    w.call = j.value("call", "");
    w.kernel = j.value("kernel", w.kernel);
    w.element = j.value("element", w.element);
    w.per = j.value("per", w.per);
    w.outputs = figure_of(j, "outputs");
    w.element_bytes = figure_of(j, "element_bytes");
    w.global_per_output = figure_of(j, "global_per_output");
    w.shared_per_output = figure_of(j, "shared_per_output");
    w.shared_per_staged = figure_of(j, "shared_per_staged");
    return w;
}

void record_counted_work(const std::vector<CountedWork>& works) {
    // A test may record its launches one at a time: each call adds to what the same test recorded before (a
    // property recorded again replaces the earlier value, so the whole object is recorded each time).
    static std::string test;
    static nlohmann::json recorded = nlohmann::json::object();
    const std::string now = current_test_name();
    if (now != test) test = now, recorded = nlohmann::json::object();
    for (const CountedWork& w : works) recorded[counted_work_key(w.suite, w.instance)] = to_json(w);
    testing::Test::RecordProperty("timed_count", recorded.dump());
}

}  // namespace gpulab
