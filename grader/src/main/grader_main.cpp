// main() of every lab's grader binary.
//
// Besides running GoogleTest it reports results to gpulab-grade, which runs the binary as a child
// process: one signed event per test start and end on the result channel (result_channel.h), and a
// closing event when it is done. A test that hangs is stopped by an alarm; a test that leaves the
// CUDA context unusable ends the process after its result is written, and gpulab-grade starts a
// fresh process for the tests that remain. Each of those ways out writes its own closing event
// first, so a process that ends without one was ended by something other than the grader.
#include "gpulab/access_analysis.h"
#include "gpulab/cuda_check.h"
#include "gpulab/gpu_profile.h"
#include "gpulab/gpu_profile_report.h"
#include "gpulab/handed_over.h"
#include "gpulab/same_work_on_gpu.h"
#include "gpulab/sanitizer_check.h"
#include "gpulab/grader_test.h"
#include "gpulab/lab_config.h"
#include "gpulab/launch_deadline.h"
#include "gpulab/launch_geometry.h"
#include "gpulab/random.h"
#include "gpulab/result_channel.h"
#include "gpulab/solution.h"
#include "gpulab/test_id.h"

#include <cuda_runtime.h>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <csignal>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

namespace gpulab {

namespace {

int g_result_fd = -1;
ChannelKey g_key{};
std::uint64_t g_next_seq = 0;
char g_timeout_line[1024];
std::size_t g_timeout_line_length = 0;
std::string g_running;  // the test that started and has not ended
std::chrono::steady_clock::time_point g_started;

// Numbers and signs one event; the caller writes it (or keeps it for the alarm handler).
std::string signed_line(nlohmann::json event) {
    event["seq"] = g_next_seq++;
    return sign_event(g_key, event);
}

void write_line(const nlohmann::json& event) {
    if (g_result_fd < 0) return;
    const std::string line = signed_line(event);
    std::size_t done = 0;
    while (done < line.size()) {
        const auto written = ::write(g_result_fd, line.data() + done, line.size() - done);
        if (written <= 0) return;
        done += std::size_t(written);
    }
}

extern "C" void on_alarm(int) {
    // Only async-signal-safe calls here: the line was formatted when the test started.
    if (g_result_fd >= 0) {
        [[maybe_unused]] const auto written = ::write(g_result_fd, g_timeout_line, g_timeout_line_length);
    }
    static const char note[] = "\n[gpulab] time limit reached: the test was stopped\n";
    [[maybe_unused]] const auto noted = ::write(2, note, sizeof(note) - 1);
    ::_exit(124);
}

std::string full_name(const testing::TestInfo& info) {
    return std::string(info.test_suite_name()) + "." + info.name();
}

// Whether GPULAB_TEST_TIMEOUT_IDS (comma-separated test ids) names `id`; unset or empty names every test.
bool named_in_timeout_ids(const std::string& id) {
    const char* env = std::getenv("GPULAB_TEST_TIMEOUT_IDS");
    if (env == nullptr || *env == '\0') return true;
    const std::string list = std::string(",") + env + ",";
    return list.find("," + id + ",") != std::string::npos;
}

// The per-test time limit: the config's "test_timeout_s", or the test record's own "timeout_s";
// GPULAB_TEST_TIMEOUT_S overrides it for the tests GPULAB_TEST_TIMEOUT_IDS names (a planted endless loop's).
unsigned timeout_for(const std::string& name) {
    unsigned limit = 120;
    try {
        const Json& config = lab_config();
        limit = config.value("test_timeout_s", limit);
        for (const Json& test : config.at("tests"))
            if (test.at("id") == test_id_of(name)) limit = test.value("timeout_s", limit);
    } catch (const std::exception&) {
        // A broken config fails the tests that read it; the limit keeps its default.
    }
    if (const char* env = std::getenv("GPULAB_TEST_TIMEOUT_S"); env && *env && named_in_timeout_ids(test_id_of(name)))
        limit = unsigned(std::stoul(env));
    return limit;
}

class ProgressListener : public testing::EmptyTestEventListener {
public:
    void OnTestStart(const testing::TestInfo& info) override {
        messages_ = nlohmann::json::array();
        started_ = std::chrono::steady_clock::now();
        const std::string name = full_name(info);
        g_running = name;
        g_started = started_;
        const unsigned limit = timeout_for(name);
        write_line({{"event", "start"}, {"test", name}});
        // Signed now, with the number the next event will carry: the alarm handler may only write.
        // If the test ends in time, "end" takes that number and this line is never written.
        const std::string line = signed_line({{"event", "timeout"}, {"test", name}, {"limit_s", limit}});
        --g_next_seq;
        g_timeout_line_length = std::min(line.size(), sizeof(g_timeout_line));
        std::copy_n(line.data(), g_timeout_line_length, g_timeout_line);
        ::alarm(limit);
    }

    void OnTestPartResult(const testing::TestPartResult& result) override {
        if (result.type() == testing::TestPartResult::kSuccess) return;
        messages_.push_back(result.message());
    }

    void OnTestEnd(const testing::TestInfo& info) override {
        ::alarm(0);
        const testing::TestResult& result = *info.result();
        nlohmann::json properties = nlohmann::json::object();
        for (int i = 0; i < result.test_property_count(); ++i) {
            // A property named "<name>_json" holds a JSON document (the roofline's figures): it goes into the
            // results as the structure itself, under <name>, so summary.json gives machines numbers, not text.
            const std::string key = result.GetTestProperty(i).key(), value = result.GetTestProperty(i).value();
            const std::string suffix = "_json";
            nlohmann::json parsed = nlohmann::json::parse(value, nullptr, false);
            if (key.size() > suffix.size() && key.ends_with(suffix) && !parsed.is_discarded())
                properties[key.substr(0, key.size() - suffix.size())] = std::move(parsed);
            else
                properties[key] = value;
        }
        if (result.Failed()) add_cpu_mode_reason();
        const char* verdict = result.Skipped() ? "skipped" : (result.Failed() ? "failed" : "passed");
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_).count();
        write_line({{"event", "end"}, {"test", full_name(info)}, {"result", verdict}, {"messages", messages_},
                    {"properties", properties}, {"ms", ms}});
        g_running.clear();
        exit_if_context_lost(full_name(info));
    }

private:
    // A failed test that left the context unusable in CPU execution mode: the runtime's reason for stopping
    // the kernel (which thread wrote past which array, which barrier diverged) must reach the student also
    // where the student's own code turned the error into an exception in its own words ("kernel launch
    // failed: an illegal memory access was encountered") and no grader check added it (cpu_mode_reason).
    void add_cpu_mode_reason() {
#ifdef GPULAB_CPU_MODE
        if (!is_sticky_cuda_error(cudaDeviceSynchronize())) return;
        const std::string detail = gpulab::cpu::last_error_detail();
        if (detail.empty()) return;
        for (const auto& m : messages_)
            if (m.is_string() && m.get<std::string>().find(detail) != std::string::npos) return;
        messages_.push_back("CPU execution mode stopped a kernel: " + detail + ".");
#endif
    }

    // After an illegal address or a crashed kernel every later CUDA call fails too; a fresh process
    // gives the remaining tests a clean context.
    static void exit_if_context_lost(const std::string& name) {
        if (!device_facts().available) return;
        const cudaError_t status = cudaDeviceSynchronize();
        if (!is_sticky_cuda_error(status)) {
            cudaGetLastError();
            return;
        }
        write_line({{"event", "context_lost"}, {"test", name}, {"error", cudaGetErrorName(status)}});
        std::cerr << "[gpulab] " << name << " left the CUDA context unusable (" << cudaGetErrorName(status)
                  << "); ending this process so the next tests start clean\n";
        std::fflush(nullptr);
        ::_exit(3);
    }

    nlohmann::json messages_;
    std::chrono::steady_clock::time_point started_;
};

// A launch deadline passed (launch_deadline.h): the running test ends failed with `message`, and the
// process with a closing "stopped" event, so gpulab-grade runs the remaining tests in a fresh process.
// Called from the watchdog thread while the test's own thread is still inside the student's code.
void stop_running_test(const std::string& message) {
    ::alarm(0);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g_started).count();
    if (!g_running.empty()) {
        write_line({{"event", "end"}, {"test", g_running}, {"result", "failed"}, {"messages", {message}},
                    {"properties", {{"stopped", "deadline"}}}, {"ms", ms}});
        write_line({{"event", "stopped"}, {"test", g_running}});
    }
    std::cerr << "[gpulab] " << (g_running.empty() ? std::string("a test") : g_running) << " was stopped: " << message << "\n";
    std::fflush(nullptr);
    ::_exit(3);
}

class DeviceEnvironment : public testing::Environment {
public:
    void SetUp() override {
        const DeviceFacts& facts = device_facts();
        std::cout << "[gpulab] device: " << facts.one_line() << "\n[gpulab] seed: " << run_seed()
                  << " (set GPULAB_SEED to reproduce)\n";
        auto event = nlohmann::json::parse(facts.to_json());
        event["event"] = "device";
        event["seed"] = std::to_string(run_seed());
        write_line(event);
    }
};

// Reads the handshake gpulab-grade wrote on `fd` (see result_channel.h) and closes it. Runs before
// any solution library is loaded, so no student code ever sees the pipe or the key.
bool take_handshake(int fd) {
    std::string text;
    char buffer[4096];
    for (;;) {
        const auto got = ::read(fd, buffer, sizeof buffer);
        if (got <= 0) break;
        text.append(buffer, std::size_t(got));
    }
    ::close(fd);
    try {
        const GraderHandshake handshake = GraderHandshake::from_json(text);
        g_key = handshake.key;
        g_result_fd = handshake.result_fd;
        set_solution_libraries(handshake.student_library, handshake.reference_library);
        set_companion_references(handshake.companion_references);
        set_handed_over(handshake.handed_over);
    } catch (const std::exception& e) {
        std::cerr << "[gpulab] the handshake from gpulab-grade is unreadable: " << e.what() << "\n";
        return false;
    }
    // Keep the result pipe out of any program the process might start.
    ::fcntl(g_result_fd, F_SETFD, FD_CLOEXEC);
    return true;
}

// Takes --gpulab_handshake_fd=N off the command line (GoogleTest would reject it); -1 if absent.
int handshake_fd_from(int& argc, char** argv) {
    static const char flag[] = "--gpulab_handshake_fd=";
    int fd = -1;
    int kept = 0;
    for (int i = 0; i < argc; ++i) {
        if (std::strncmp(argv[i], flag, sizeof flag - 1) == 0) fd = std::atoi(argv[i] + sizeof flag - 1);
        else argv[kept++] = argv[i];
    }
    argc = kept;
    argv[argc] = nullptr;
    return fd;
}

}  // namespace
}  // namespace gpulab

namespace gpulab {
// A test lab.json marks "timing" runs with the GPU's profiling lock held (gpu_profile.h: GpuProfileLock): the drawn
// samples it profiles and the clock it reads share the GPU with no other grading's.
class TimedTestHoldsTheGpu : public testing::EmptyTestEventListener {
public:
    void OnTestStart(const testing::TestInfo& info) override {
        if (device_facts().available && !device_facts().emulated && marked_timing(test_id_of(full_name(info))))
            lock_ = std::make_unique<GpuProfileLock>();
    }
    void OnTestEnd(const testing::TestInfo&) override { lock_.reset(); }

private:
    static bool marked_timing(const std::string& id) {
        const Json* test = lab_test_entry(id);
        return test && test->value("timing", false);
    }
    std::unique_ptr<GpuProfileLock> lock_;
};
}  // namespace gpulab

int main(int argc, char** argv) {
    // Before InitGoogleTest: parameterized tests read their sizes from the config while registering.
    ::setenv("GPULAB_LAB_CONFIG", gpulab::built_in_lab_config_path(), /*overwrite=*/0);
    const int handshake_fd = gpulab::handshake_fd_from(argc, argv);
    testing::InitGoogleTest(&argc, argv);
    gpulab::register_geometry_checks();
    gpulab::register_access_report();  // Report.AccessAnalysis, where lab.json lists it
    gpulab::register_gpu_profile_report();  // Report.GpuProfile, where lab.json lists it
    gpulab::register_same_work_on_gpu();  // Technique.SameWorkOnGpu, where lab.json lists it
    gpulab::register_sanitizer_test();    // Sanitizer.NoErrors, where lab.json lists it
    if (handshake_fd >= 0) {
        if (!gpulab::take_handshake(handshake_fd)) return 4;
        std::signal(SIGALRM, gpulab::on_alarm);
        gpulab::set_test_stopper(&gpulab::stop_running_test);
        testing::UnitTest::GetInstance()->listeners().Append(new gpulab::ProgressListener);
    }
    testing::AddGlobalTestEnvironment(new gpulab::DeviceEnvironment);
    testing::UnitTest::GetInstance()->listeners().Append(new gpulab::TimedTestHoldsTheGpu);
    const int status = RUN_ALL_TESTS();
    gpulab::write_line({{"event", "finished"}});
    return status;
}
