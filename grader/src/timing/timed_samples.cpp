#include "gpulab/timed_samples.h"

#include "gpulab/counted_work.h"
#include "gpulab/grader_test.h"
#include "gpulab/device_facts.h"
#include "gpulab/format.h"
#include "gpulab/lab_config.h"
#include "gpulab/launch_deadline.h"
#include "gpulab/gpu_profile_report.h"
#include "gpulab/instruction_counters.h"
#include "gpulab/sample_counters.h"
#include "gpulab/solution.h"
#include "gpulab/source_lines.h"
#include "gpulab/test_id.h"
#include "gpulab/timing.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gpulab {
namespace {

// Whether this process already read a sample of (suite, instance, role) with every metric: the report's row.
bool has_full_sample(const std::string& suite, const std::string& instance, const std::string& role) {
    for (const ProfiledLaunch* l : gpu_profile().drawn(suite, instance, role))
        if (l->full && l->error.empty()) return true;
    return false;
}

// Whether this test's samples of the student's launch are compared with CPU execution mode's count: where the count
// was handed over (it ended before this process started), or where lab.json has a later test confirm this one
// ("confirmed_by": Technique.SameWorkOnGpu, which compares them once the count, running beside the timed tests,
// ends: grader/runner/wave_plan.h). Either way the same number is drawn, so no process can tell which.
bool compared_with_count(const TimedWork& work) {
    CountedWork ignored;
    if (counted_work(work.suite, work.instance, ignored, nullptr)) return true;
    const Json* entry = lab_test_entry(test_id_of(current_test_name()));
    return entry && entry->contains("confirmed_by") && !entry->at("confirmed_by").empty();
}

// A drawn launch's limit: its replays take a few times its own time and CUPTI's passes a few ms each.
double profiled_deadline_ms(const TimedWork& work) { return 10 * work.deadline_ms + 30000; }

// The student's full sample, where its counters name a cause that lines carry or its warps ran with few working lanes
// (instructions_worth_counting): each memory instruction's counts and line, from one more run of the launch under
// CUPTI's patched kernels (instruction_counters.h). Feedback only: no figure of that run is timed, compared or scored,
// and its launches are not recorded as the sample's.
void count_instructions(ProfiledLaunch& l, const std::function<void()>& launch, const TimedWork& work) {
    GpuProfile one;
    one.available = true;
    one.launches = {l};
    if (!instructions_worth_counting(figures_of(one, l.suite, l.instance, "yours"))) return;
    std::unique_ptr<LaunchDeadline> deadline;
    if (work.deadline_ms > 0)
        deadline = std::make_unique<LaunchDeadline>(
            profiled_deadline_ms(work),
            too_slow_message(work.call + " (a drawn timed sample, its instructions counted)", profiled_deadline_ms(work),
                             work.reference_ms));
    LaunchRecorder recorder;
    const InstructionCounts counts = read_instruction_counters(launch, solution_library_path(Role::student));
    l.instructions = counts.instructions;
    l.instruction_lines = counts.lines;
    l.instructions_why = counts.why;
    l.barrier_lines = counts.barrier_lines;
    l.seconds += counts.seconds;
    l.instructions_seconds = counts.seconds;
}

}  // namespace

ProfiledSamples::ProfiledSamples(const TimedWork* work, const std::vector<std::string>& roles, int samples)
    : work_(work), roles_(roles), samples_(samples), drawn_(roles.size()) {
    bool any = false;
    for (const std::string& r : roles) any = any || !r.empty();
    if (!work || !any || samples <= 0) return;
    if (work->suite.empty()) {
        // Every speed test's work names the registered timed launch it times (name_after_timed_launch): without it
        // no sample could be compared with CPU execution mode's count, and a cheat would go unseen.
        if (std::find(roles.begin(), roles.end(), "yours") != roles.end())
            ADD_FAILURE() << "grader error: the timed work " << work->call
                          << " names no registered timed launch, so none of its samples can be drawn and checked";
        return;
    }
    if (!counters_readable(&unreadable_)) {
        note_counters_unreadable(unreadable_);
        return;
    }
    for (std::size_t i = 0; i < roles.size(); ++i) {
        const std::string& role = roles[i];
        if (role.empty()) continue;
        int count = 0;
        const bool checked = role == "yours" && compared_with_count(*work);
        if (!checked && !profiled_suite(work->suite)) continue;  // lab.json leaves its report rows out
        if (checked) count = drawn_samples_for(samples);
        else if (!has_full_sample(work->suite, work->instance, role)) count = 1;
        for (int s : draw_samples(samples, count)) drawn_[i].insert(s);
    }
}

void ProfiledSamples::saw_kernels(std::size_t index, std::size_t kernels) {
    if (most_kernels_.size() <= index) most_kernels_.resize(index + 1, 0);
    most_kernels_[index] = std::max(most_kernels_[index], kernels);
}

bool ProfiledSamples::yours_at_fault() const {
    for (const ProfiledLaunch& l : read_)
        if (l.role == "yours" && l.launch_at_fault) return true;
    return false;
}

bool ProfiledSamples::drawn(std::size_t launch, int sample) const {
    return launch < drawn_.size() && drawn_[launch].count(sample) > 0;
}

void ProfiledSamples::run(std::size_t index, int sample, const std::function<void()>& launch,
                          std::vector<RecordedLaunch>& launches, std::vector<RecordedCall>& calls) {
    const std::string& role = roles_.at(index);
    ProfiledLaunch l;
    l.role = role;
    l.suite = work_->suite, l.instance = work_->instance;
    l.call = role == "yours" ? work_->call : role + ": " + work_->call;
    l.sample = sample + 1, l.samples = samples_;
    l.full = !has_full_sample(l.suite, l.instance, role);
    l.device = device_facts().name;
    SampleCounters counters;
    const std::size_t seen = index < most_kernels_.size() ? most_kernels_[index] : 0;
    if (seen > kMaxProfiledKernels) {
        LaunchRecorder recorder;
        launch();
        launches = recorder.launches();
        calls = recorder.calls();
        counters.launched = true;
        counters.launch_at_fault = true;
        counters.error = "the launch runs " + std::to_string(seen) + " kernels, more than the grader profiles in one launch (" +
                         std::to_string(kMaxProfiledKernels) + "): launch one grid over the whole problem, which also "
                         "saves each launch's few microseconds";
    } else {
        std::unique_ptr<LaunchDeadline> deadline;
        if (role == "yours" && work_->deadline_ms > 0)
            deadline = std::make_unique<LaunchDeadline>(
                profiled_deadline_ms(*work_),
                too_slow_message(work_->call + " (a drawn timed sample, profiled)", profiled_deadline_ms(*work_),
                                 work_->reference_ms));
        LaunchRecorder recorder;
        counters = read_counters(launch, l.full ? CounterList::full : CounterList::check);
        // The counters could not be read before it ran (the machine's reason): the sample still runs, unprofiled,
        // for its output is checked and its launch audited like every other.
        if (!counters.launched) launch();
        launches = recorder.launches();
        calls = recorder.calls();
    }
    l.error = counters.error;
    l.launch_at_fault = counters.launch_at_fault;
    l.seconds = counters.seconds;
    if (l.error.empty() && counters.kernels.size() != launches.size()) {
        l.error = "the profiler read " + std::to_string(counters.kernels.size()) + " kernels of a launch that ran " +
                  std::to_string(launches.size());
        l.launch_at_fault = launches.size() > kMaxProfiledKernels;
    }
    l.kernels_launched = launches.size();
    if (role == "yours" && !launches.empty())
        l.first_launch_line = launch_line_of(launches.front()).quoted(), l.first_configuration = launches.front().describe();
    for (std::size_t k = 0; k < counters.kernels.size(); ++k) {
        ProfiledKernel kernel = counters.kernels[k];
        if (k < launches.size()) {
            kernel.name = kernel_name_of(launches[k].kernel);
            if (role == "yours") kernel.launch_line = launch_line_of(launches[k]).quoted();
            kernel.configuration = launches[k].describe();
            for (const auto& [name, value] : launch_metrics(launches[k])) kernel.metrics[name] = value;
        }
        l.kernels.push_back(std::move(kernel));
    }
    if (role == "yours" && l.full && l.error.empty()) count_instructions(l, launch, *work_);
    add_drawn_sample(l);
    read_.push_back(std::move(l));
}

std::string ProfiledSamples::drawn_of_yours() const {
    for (std::size_t i = 0; i < roles_.size(); ++i)
        if (roles_[i] == "yours" && !drawn_[i].empty())
            return std::to_string(drawn_[i].size()) + " of " + std::to_string(samples_);
    return "";
}

std::string drawn_samples_verdict(const TimedWork& work, const std::vector<ProfiledLaunch>& samples) {
    CountedWork count;
    const bool have_count = counted_work(work.suite, work.instance, count, nullptr);
    for (const ProfiledLaunch& l : samples) {
        if (l.role != "yours") continue;
        if (!l.error.empty() && l.launch_at_fault)
            return std::string(kPointsWait) + l.which() + " of " + l.call +
                   ", drawn at random to have its counters read, could not be profiled because of the launch (" +
                   l.error + "). Every timed sample may be the one checked; a launch that cannot be checked earns "
                   "no speed points until it can.";
        if (!have_count || !l.error.empty()) continue;  // nothing to compare with, or the machine's reason
        const DrawnSampleVerdict v = check_drawn_sample(l, count);
        if (!v.agree) return v.message;
    }
    return "";
}

void record_drawn_samples(const ProfiledSamples& series) {
    // Every series of the current test so far: a test may time several launches (float and double).
    static std::string test;
    static std::vector<ProfiledLaunch> samples;
    const std::string name = current_test_name();
    if (name != test) test = name, samples.clear();
    samples.insert(samples.end(), series.read().begin(), series.read().end());
    if (!samples.empty()) testing::Test::RecordProperty("drawn_counters", drawn_samples_json(samples).dump());
    if (!series.unreadable().empty()) testing::Test::RecordProperty("drawn_counters_unavailable", series.unreadable());
}

}  // namespace gpulab
