// The drawn timed samples' counters of this process or handed over to it, and the check of one against CPU execution
// mode's count (gpu_profile.h). The samples are drawn and read by the timing loop (timing.cpp, sample_counters.h).
#include "gpulab/gpu_profile.h"

#include "gpulab/counted_work.h"
#include "gpulab/grader_test.h"
#include "gpulab/device_facts.h"
#include "gpulab/format.h"
#include "gpulab/handed_over.h"
#include "gpulab/lab_config.h"
#include "gpulab/sample_counters.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <map>
#include <random>

namespace gpulab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::mutex g_mutex;
std::map<std::string, bool>& timed_here() {  // key -> stopped by the launch
    static std::map<std::string, bool> keys;
    return keys;
}
std::vector<ProfiledLaunch>& drawn_here() {
    static std::vector<ProfiledLaunch> samples;
    return samples;
}
std::string& unreadable_here() {  // the machine's reason this process read no sample, where it tried
    static std::string why;
    return why;
}

// The samples the grading's timing process drew, as gpulab-grade handed them over; *why: a reason the timing
// process gave for reading none (the machine's), where it gave one.
std::vector<ProfiledLaunch> handed_over_samples(std::string* why) {
    std::vector<ProfiledLaunch> samples;
    for (const std::string& text : handed_over_property("drawn_counters")) {
        const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
        for (ProfiledLaunch& l : drawn_samples_of(j)) samples.push_back(std::move(l));
    }
    const std::vector<std::string> unavailable = handed_over_property("drawn_counters_unavailable");
    if (why && !unavailable.empty()) *why = unavailable.front();
    return samples;
}


// n choose k as a double (n <= a few hundred here).
double choose(int n, int k) {
    if (k < 0 || k > n) return 0;
    double c = 1;
    for (int i = 1; i <= k; ++i) c = c * double(n - k + i) / double(i);
    return c;
}

}  // namespace

std::string global_load_metric() {
    if (const char* env = std::getenv("GPULAB_NCU_GLOBAL_LOAD_METRIC"); env && *env) return env;
    return ncu_metric::kGlobalLoadBytes;
}

bool shared_bytes_counted(const Json& lab, std::string* why) {
    const bool counted = !lab.contains("gpu_profile") || lab.at("gpu_profile").value("shared_bytes", true);
    if (!counted && why)
        *why = "lab.json's gpu_profile leaves the GPU's shared-memory bytes out (\"shared_bytes\": false): counting "
               "them patches every shared load the timed launches execute (lab 07's four products: 3.3 s of a 6.7 s "
               "profile on an H200). Report.AccessAnalysis counts them exactly in CPU execution mode";
    return counted;
}

bool shared_bytes_counted(std::string* why) {
    try {
        return shared_bytes_counted(lab_config(), why);
    } catch (const std::exception&) {
        return true;  // a broken config fails the tests that read it
    }
}

bool profiled_suite(const std::string& suite, std::string* why) {
    try {
        const Json& lab = lab_config();
        if (!lab.contains("gpu_profile") || !lab.at("gpu_profile").contains("suites")) return true;
        std::string named;
        for (const Json& s : lab.at("gpu_profile").at("suites")) {
            if (s.get<std::string>() == suite) return true;
            named += (named.empty() ? "" : ", ") + s.get<std::string>();
        }
        if (why)
            *why = "lab.json's gpu_profile draws samples of " + named + " only: profiling the other kernels costs more "
                   "grading time than their figures are worth (lab 07's naive 4096^3 products)";
        return false;
    } catch (const std::exception&) {
        return true;  // a broken config fails the tests that read it
    }
}

namespace {
std::function<TimedLaunchName()>& expert_maker() {
    static std::function<TimedLaunchName()> make;
    return make;
}
}  // namespace

bool set_expert_beside(std::function<TimedLaunchName()> make) {
    expert_maker() = std::move(make);
    return true;
}

TimedLaunchName expert_beside() {
    try {
        return expert_maker() ? expert_maker()() : TimedLaunchName{};
    } catch (const std::exception&) {
        return {};  // a broken config fails the tests that read it
    }
}

double ProfiledKernel::metric(const std::string& m) const {
    const auto it = metrics.find(m);
    return it == metrics.end() ? kNaN : it->second;
}

double ProfiledLaunch::total(const std::string& m) const {
    double sum = 0;
    for (const ProfiledKernel& k : kernels) sum += k.metric(m);
    return kernels.empty() ? kNaN : sum;
}

std::string ProfiledLaunch::which() const {
    return "timed sample " + std::to_string(sample) + " of " + std::to_string(samples);
}

const ProfiledLaunch* GpuProfile::find(const std::string& suite, const std::string& instance,
                                       const std::string& role) const {
    const ProfiledLaunch* first = nullptr;
    for (const ProfiledLaunch& l : launches) {
        if (l.suite != suite || l.instance != instance || l.role != role) continue;
        if (l.full && l.error.empty()) return &l;
        if (!first) first = &l;
    }
    return first;
}

const ProfiledLaunch* GpuProfile::find_in_suite(const std::string& suite, const std::string& role) const {
    for (const ProfiledLaunch& l : launches)
        if (l.suite == suite && l.role == role)
            if (const ProfiledLaunch* best = find(suite, l.instance, role)) return best;
    return nullptr;
}

std::vector<const ProfiledLaunch*> GpuProfile::drawn(const std::string& suite, const std::string& instance,
                                                     const std::string& role) const {
    std::vector<const ProfiledLaunch*> out;
    for (const ProfiledLaunch& l : launches)
        if (l.suite == suite && l.instance == instance && l.role == role) out.push_back(&l);
    return out;
}

const GpuProfile& gpu_profile() {
    static GpuProfile profile;
    std::lock_guard<std::mutex> guard(g_mutex);
    try {
        std::string unavailable;
        profile = GpuProfile{};
        profile.launches = drawn_here();
        for (ProfiledLaunch& l : handed_over_samples(&unavailable)) profile.launches.push_back(std::move(l));
        // Reading the counters is set up only where the timing loop draws a sample (seconds of CUPTI's start-up):
        // asking whether they could be read must not do it.
        profile.available = !profile.launches.empty();
        if (!profile.available)
            profile.why = !unreadable_here().empty() ? unreadable_here()
                          : !unavailable.empty()      ? unavailable
                          : device_facts().emulated
                              ? "no timed sample of this grading was profiled on a GPU (CPU execution mode times nothing)"
                              : "no timed sample was profiled in this process (the speed tests profile them)";
        profile.device = device_facts().emulated ? "" : device_facts().name;
        for (const ProfiledLaunch& l : profile.launches)
            if (profile.device.empty()) profile.device = l.device;
        bool expert = false;
        for (const ProfiledLaunch& l : profile.launches) {
            profile.seconds += l.seconds;
            expert = expert || l.role == "expert";
        }
        if (!expert)
            profile.expert_why = "no expert kernel was timed beside yours in this grading (Report.Roofline times it, "
                                 "where the build has the lab's expert)";
    } catch (const std::exception& e) {
        profile = GpuProfile{};
        profile.why = std::string("the drawn samples could not be read: ") + e.what();
    }
    return profile;
}

void add_drawn_sample(const ProfiledLaunch& sample) {
    std::lock_guard<std::mutex> guard(g_mutex);
    drawn_here().push_back(sample);
}

void note_counters_unreadable(const std::string& why) {
    std::lock_guard<std::mutex> guard(g_mutex);
    unreadable_here() = why;
}

void note_timed_launch(const std::string& key, TimedSeries series) {
    // Every series of the current test so far (a test may time float and double): one property, rewritten.
    static std::string test;
    static nlohmann::json keys = nlohmann::json::object();
    const std::string name = current_test_name();
    std::lock_guard<std::mutex> guard(g_mutex);
    const bool stopped = series == TimedSeries::stopped_by_the_launch;
    timed_here()[key] = timed_here()[key] || stopped;
    if (name != test) test = name, keys = nlohmann::json::object();
    keys[key] = keys.value(key, false) || stopped;
    testing::Test::RecordProperty("timed_launches", keys.dump());
}

TimedSeries timed_series_of(const std::string& key) {
    bool timed = false, stopped = false;
    {
        std::lock_guard<std::mutex> guard(g_mutex);
        const auto here = timed_here().find(key);
        if (here != timed_here().end()) timed = true, stopped = here->second;
    }
    for (const std::string& text : handed_over_property("timed_launches")) {
        const nlohmann::json keys = nlohmann::json::parse(text, nullptr, false);
        if (!keys.is_object() || !keys.contains(key)) continue;
        timed = true;
        stopped = stopped || keys.at(key).get<bool>();
    }
    return stopped ? TimedSeries::stopped_by_the_launch : timed ? TimedSeries::timed : TimedSeries::not_timed;
}

namespace {

// An instruction's counts as a short array, in InstructionCount's order (the hand-over between processes).
nlohmann::json counts_of(const InstructionCount& i) {
    return {i.ip, i.load_requests, i.load_sectors, i.load_lanes, i.store_requests, i.store_sectors, i.store_lanes,
            i.shared_load_requests, i.shared_load_conflicts, i.shared_store_requests, i.shared_store_conflicts,
            i.idle_requests};
}

InstructionCount instruction_of(const nlohmann::json& a) {
    InstructionCount i;
    if (!a.is_array() || a.size() != 12) return i;
    const auto n = [&](std::size_t k) { return a[k].is_number_unsigned() ? a[k].get<unsigned long long>() : 0ULL; };
    i.ip = std::uintptr_t(n(0));
    i.load_requests = n(1), i.load_sectors = n(2), i.load_lanes = n(3);
    i.store_requests = n(4), i.store_sectors = n(5), i.store_lanes = n(6);
    i.shared_load_requests = n(7), i.shared_load_conflicts = n(8);
    i.shared_store_requests = n(9), i.shared_store_conflicts = n(10);
    i.idle_requests = n(11);
    return i;
}

}  // namespace

nlohmann::json drawn_samples_json(const std::vector<ProfiledLaunch>& samples) {
    nlohmann::json out = nlohmann::json::array();
    for (const ProfiledLaunch& l : samples) {
        nlohmann::json kernels = nlohmann::json::array();
        for (const ProfiledKernel& k : l.kernels) {
            nlohmann::json metrics = nlohmann::json::object();
            for (const auto& [name, value] : k.metrics)
                metrics[name] = std::isnan(value) ? nlohmann::json(nullptr) : nlohmann::json(value);
            kernels.push_back({{"name", k.name}, {"metrics", metrics}, {"launch_line", k.launch_line},
                               {"configuration", k.configuration}});
        }
        nlohmann::json instructions = nlohmann::json::array();
        for (std::size_t k = 0; k < l.instructions.size(); ++k)
            instructions.push_back({{"line", k < l.instruction_lines.size() ? l.instruction_lines[k] : ""},
                                    {"counts", counts_of(l.instructions[k])}});
        out.push_back({{"role", l.role}, {"suite", l.suite}, {"instance", l.instance}, {"call", l.call},
                       {"sample", l.sample}, {"samples", l.samples}, {"full", l.full}, {"error", l.error},
                       {"launch_at_fault", l.launch_at_fault}, {"seconds", l.seconds}, {"device", l.device},
                       {"kernels", kernels}, {"instructions", instructions}, {"instructions_why", l.instructions_why},
                       {"kernels_launched", l.kernels_launched}, {"first_launch_line", l.first_launch_line},
                       {"first_configuration", l.first_configuration}, {"barrier_lines", l.barrier_lines}});
    }
    return out;
}

std::vector<ProfiledLaunch> drawn_samples_of(const nlohmann::json& j) {
    std::vector<ProfiledLaunch> out;
    if (!j.is_array()) return out;
    for (const nlohmann::json& s : j) {
        ProfiledLaunch l;
        l.role = s.value("role", "yours");
        l.suite = s.value("suite", ""), l.instance = s.value("instance", ""), l.call = s.value("call", "");
        l.sample = s.value("sample", 0), l.samples = s.value("samples", 0);
        l.full = s.value("full", false);
        l.error = s.value("error", "");
        l.launch_at_fault = s.value("launch_at_fault", false);
        l.seconds = s.value("seconds", 0.0);
        l.device = s.value("device", "");
        const nlohmann::json kernels = s.value("kernels", nlohmann::json::array());
        for (const nlohmann::json& k : kernels) {
            ProfiledKernel kernel;
            kernel.name = k.value("name", "");
            kernel.launch_line = k.value("launch_line", "");
            kernel.configuration = k.value("configuration", "");
            const nlohmann::json metrics = k.value("metrics", nlohmann::json::object());  // outlives the loop below
            for (const auto& [name, value] : metrics.items())
                kernel.metrics[name] = value.is_number() ? value.get<double>() : kNaN;
            l.kernels.push_back(std::move(kernel));
        }
        for (const nlohmann::json& i : s.value("instructions", nlohmann::json::array())) {
            l.instruction_lines.push_back(i.value("line", ""));
            l.instructions.push_back(instruction_of(i.value("counts", nlohmann::json::array())));
        }
        l.instructions_why = s.value("instructions_why", "");
        l.kernels_launched = s.value("kernels_launched", std::size_t(0));
        l.first_launch_line = s.value("first_launch_line", "");
        l.first_configuration = s.value("first_configuration", "");
        for (const nlohmann::json& b : s.value("barrier_lines", nlohmann::json::array()))
            if (b.is_array() && b.size() == 2) l.barrier_lines.emplace_back(b[0].get<std::string>(), b[1].get<double>());
        out.push_back(std::move(l));
    }
    return out;
}

double chance_all_miss(int samples, int other, int drawn) {
    if (samples <= 0 || drawn <= 0) return 1;
    return choose(samples - other, drawn) / choose(samples, drawn);
}

int drawn_samples_for(int samples, double miss) {
    if (samples <= 0) return 0;
    const int other = samples / 2 + 1;  // more than half of them
    for (int k = 1; k <= samples; ++k)
        if (chance_all_miss(samples, other, k) <= miss) return k;
    return samples;
}

std::vector<int> draw_samples(int samples, int count) {
    std::vector<int> all(std::max(0, samples));
    for (int i = 0; i < samples; ++i) all[i] = i;
    std::random_device source;  // not the run's seed: the printed seed must not tell which samples are profiled
    std::mt19937_64 shuffle((std::uint64_t(source()) << 32) ^ source());
    std::shuffle(all.begin(), all.end(), shuffle);
    all.resize(std::min<std::size_t>(all.size(), std::size_t(std::max(0, count))));
    std::sort(all.begin(), all.end());
    return all;
}

// ---- The GPU's profiling lock --------------------------------------------------------------------------------

namespace {
std::mutex lock_mutex;
int lock_depth = 0;
int lock_fd = -1;

std::string lock_path() {
    if (const char* env = std::getenv("GPULAB_PROFILE_LOCK"); env && *env) return env;
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    std::string gpus = visible && *visible ? visible : "all";
    for (char& c : gpus)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
    return "/tmp/gpulab-ncu-" + gpus + ".lock";
}
}  // namespace

GpuProfileLock::GpuProfileLock() {
    std::lock_guard<std::mutex> guard(lock_mutex);
    if (lock_depth++ > 0) return;  // this process holds it already
    lock_fd = ::open(lock_path().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (lock_fd < 0) return;       // no lock to be had
    ::fchmod(lock_fd, 0666);       // another user's grading (a class sandbox user) may take it next
    while (::flock(lock_fd, LOCK_EX) != 0 && errno == EINTR) {
    }
}

GpuProfileLock::~GpuProfileLock() {
    std::lock_guard<std::mutex> guard(lock_mutex);
    if (--lock_depth > 0) return;
    release_counters();  // the next holder, in another process, may read them
    if (lock_fd >= 0) ::close(lock_fd);  // releases the lock
    lock_fd = -1;
}

// ---- The check -------------------------------------------------------------------------------------------------

std::string drawn_sample_rule() {
    return "GPU <= CPU x " + fixed(1 + kAgreementRelative, 2) + " + " + fixed(kAgreementAbsolute, 2) +
           " global (and shared >= CPU / " + fixed(1 + kAgreementRelative, 2) + " - " + fixed(kAgreementAbsolute, 2) +
           ") elements read per output, on every drawn timed sample";
}

DrawnSampleVerdict check_drawn_sample(const ProfiledLaunch& drawn, const CountedWork& counted) {
    DrawnSampleVerdict v;
    v.cpu = counted.global_per_output;
    v.cpu_shared = counted.shared_per_output;
    if (!drawn.error.empty()) {
        v.message = drawn.which() + " could not be profiled: " + drawn.error;
        v.agree = !drawn.launch_at_fault;
        return v;
    }
    if (drawn.kernels.empty() || !(counted.outputs > 0) || std::isnan(counted.global_per_output)) {
        v.message = drawn.kernels.empty() ? drawn.which() + " ran no kernel" : "CPU execution mode's count is empty";
        v.agree = !drawn.kernels.empty();
        return v;
    }
    const double per_output = counted.element_bytes * counted.outputs;
    v.compared = true;
    v.gpu = drawn.total(global_load_metric()) / per_output;
    const double allowed = v.cpu * (1 + kAgreementRelative) + kAgreementAbsolute;
    std::string wrong;
    if (std::isnan(v.gpu) || v.gpu > allowed)
        wrong = counted.kernel + " reads its " + counted.element + " " + fixed(v.gpu, 2) + " times per " + counted.per +
                " from global memory on the GPU and " + fixed(v.cpu, 2) + " times in CPU execution mode (at most " +
                fixed(allowed, 2) + " allowed)";
    // Shared memory, where both sides counted it: the tile's reads must be there on the GPU too. Per output where CPU
    // execution mode counted its blocks whole; else per value staged (counted_work.h, shared_per_staged), which a
    // kernel that fills its tile and reads around it on the GPU brings down just as far.
    if (shared_bytes_counted() && (!std::isnan(v.cpu_shared) || !std::isnan(counted.shared_per_staged))) {
        v.shared_per_staged = std::isnan(v.cpu_shared);
        const std::string per = v.shared_per_staged ? "value it stages there" : counted.per;
        if (v.shared_per_staged) {
            v.cpu_shared = counted.shared_per_staged;
            const double staged = drawn.total(ncu_metric::kSharedStoreBytes);
            // Nothing staged on the GPU reads nothing back from the tile either: 0, not NaN.
            v.gpu_shared = staged > 0 ? drawn.total(ncu_metric::kSharedLoadBytes) / staged : staged == 0 ? 0.0 : staged;
        } else {
            v.gpu_shared = drawn.total(ncu_metric::kSharedLoadBytes) / per_output;
        }
        const double least = v.cpu_shared / (1 + kAgreementRelative) - kAgreementAbsolute;
        if (std::isnan(v.gpu_shared) || v.gpu_shared < least)
            wrong += std::string(wrong.empty() ? counted.kernel : "; it") + " reads " + fixed(v.gpu_shared, 2) +
                     " values from shared memory per " + per + " on the GPU and " + fixed(v.cpu_shared, 2) +
                     " in CPU execution mode (at least " + fixed(std::max(0.0, least), 2) + " required)";
    }
    if (wrong.empty()) return v;
    v.agree = false;
    v.message = drawn.which() + " of " + drawn.call + ", drawn at random and profiled: " + wrong +
                ". A timed launch must do the work that was counted: a kernel that takes another path on some "
                "launches (after a few calls, after some time, on other inputs, on the GPU only) is judged by what "
                "it does there. (The bytes its threads asked for, over " + fixed(counted.element_bytes, 0) +
                " B per element and the launch's " + fixed(counted.outputs, 0) + " " + counted.per + "s.)";
    return v;
}

}  // namespace gpulab
