// main() of every lab's grader binary.
//
// Besides running GoogleTest it reports progress for gpulab-grade, which runs the binary as a child
// process: one JSON line per test start and end in $GPULAB_PROGRESS_FILE. A test that hangs is
// stopped by an alarm; a test that leaves the CUDA context unusable ends the process after its
// result is written, and gpulab-grade starts a fresh process for the tests that remain.
#include "gpulab/cuda_check.h"
#include "gpulab/grader_test.h"
#include "gpulab/lab_config.h"
#include "gpulab/random.h"
#include "gpulab/test_id.h"

#include <cuda_runtime.h>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <csignal>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace gpulab {

void record_figure(const std::string& measured, const std::string& threshold) {
    testing::Test::RecordProperty("measured", measured);
    testing::Test::RecordProperty("threshold", threshold);
}

namespace {

int g_progress_fd = -1;
char g_timeout_line[1024];
std::size_t g_timeout_line_length = 0;

void write_line(const nlohmann::json& event) {
    if (g_progress_fd < 0) return;
    const std::string line = event.dump() + "\n";
    [[maybe_unused]] const auto written = ::write(g_progress_fd, line.data(), line.size());
}

extern "C" void on_alarm(int) {
    // Only async-signal-safe calls here: the line was formatted when the test started.
    if (g_progress_fd >= 0) {
        [[maybe_unused]] const auto written = ::write(g_progress_fd, g_timeout_line, g_timeout_line_length);
    }
    static const char note[] = "\n[gpulab] time limit reached: the test was stopped\n";
    [[maybe_unused]] const auto noted = ::write(2, note, sizeof(note) - 1);
    ::_exit(124);
}

std::string full_name(const testing::TestInfo& info) {
    return std::string(info.test_suite_name()) + "." + info.name();
}

// The per-test time limit: the config's "test_timeout_s", or the test record's own "timeout_s".
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
    if (const char* env = std::getenv("GPULAB_TEST_TIMEOUT_S"); env && *env) limit = unsigned(std::stoul(env));
    return limit;
}

class ProgressListener : public testing::EmptyTestEventListener {
public:
    void OnTestStart(const testing::TestInfo& info) override {
        messages_ = nlohmann::json::array();
        started_ = std::chrono::steady_clock::now();
        const std::string name = full_name(info);
        const unsigned limit = timeout_for(name);
        const std::string line = nlohmann::json{{"event", "timeout"}, {"test", name}, {"limit_s", limit}}.dump() + "\n";
        g_timeout_line_length = std::min(line.size(), sizeof(g_timeout_line));
        std::copy_n(line.data(), g_timeout_line_length, g_timeout_line);
        write_line({{"event", "start"}, {"test", name}});
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
        for (int i = 0; i < result.test_property_count(); ++i)
            properties[result.GetTestProperty(i).key()] = result.GetTestProperty(i).value();
        const char* verdict = result.Skipped() ? "skipped" : (result.Failed() ? "failed" : "passed");
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_).count();
        write_line({{"event", "end"}, {"test", full_name(info)}, {"result", verdict}, {"messages", messages_},
                    {"properties", properties}, {"ms", ms}});
        exit_if_context_lost(full_name(info));
    }

private:
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

}  // namespace
}  // namespace gpulab

#ifndef GPULAB_LAB_CONFIG_PATH
#error "each lab's grader is compiled with GPULAB_LAB_CONFIG_PATH (gpulab_add_lab sets it)"
#endif

int main(int argc, char** argv) {
    // Before InitGoogleTest: parameterized tests read their sizes from the config while registering.
    ::setenv("GPULAB_LAB_CONFIG", GPULAB_LAB_CONFIG_PATH, /*overwrite=*/0);
    testing::InitGoogleTest(&argc, argv);
    if (const char* path = std::getenv("GPULAB_PROGRESS_FILE"); path && *path) {
        gpulab::g_progress_fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (gpulab::g_progress_fd < 0) std::perror(path);
        std::signal(SIGALRM, gpulab::on_alarm);
        testing::UnitTest::GetInstance()->listeners().Append(new gpulab::ProgressListener);
    }
    testing::AddGlobalTestEnvironment(new gpulab::DeviceEnvironment);
    return RUN_ALL_TESTS();
}
