#include "gpulab/launch_deadline.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace gpulab {
namespace {

void default_stopper(const std::string& message) {
    std::fprintf(stderr, "[gpulab] %s\n", message.c_str());
    std::fflush(nullptr);
    ::_exit(124);
}

TestStopper g_stopper = &default_stopper;

}  // namespace

void set_test_stopper(TestStopper stopper) { g_stopper = stopper ? stopper : &default_stopper; }

double deadline_ms(double reference_ms, double multiple, double floor_ms) {
    return std::max(floor_ms, multiple * reference_ms);
}

struct LaunchDeadline::Watchdog {
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    std::thread thread;
};

LaunchDeadline::LaunchDeadline(double limit_ms, std::string message) : watchdog_(std::make_unique<Watchdog>()) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(static_cast<long long>(limit_ms * 1000));
    Watchdog* w = watchdog_.get();
    w->thread = std::thread([w, until, message = std::move(message)] {
        std::unique_lock<std::mutex> lock(w->mutex);
        // The stopper ends the process: it never returns to a test that is still running.
        if (!w->done.wait_until(lock, until, [w] { return w->finished; })) g_stopper(message);
    });
}

LaunchDeadline::~LaunchDeadline() {
    {
        std::lock_guard<std::mutex> lock(watchdog_->mutex);
        watchdog_->finished = true;
    }
    watchdog_->done.notify_one();
    watchdog_->thread.join();
}

}  // namespace gpulab
