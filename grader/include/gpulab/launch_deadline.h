// A student's launch that runs far longer than the reference's is stopped, not waited for.
//
// A host computation inside a launch function, or a kernel a hundred times slower than it should be,
// would otherwise hold a speed test until its time limit (minutes, once per test). While a
// LaunchDeadline is alive a watchdog thread waits; if the deadline passes first, the test is ended as
// failed with the given message ("too slow to time ..."), and the process exits so that gpulab-grade
// goes on with the next test in a fresh one (a kernel still running cannot be interrupted otherwise).
#pragma once

#include <memory>
#include <string>

namespace gpulab {

class LaunchDeadline {
public:
    // `limit_ms` from now; `message` is what the student reads when it passes.
    LaunchDeadline(double limit_ms, std::string message);
    ~LaunchDeadline();
    LaunchDeadline(const LaunchDeadline&) = delete;
    LaunchDeadline& operator=(const LaunchDeadline&) = delete;

private:
    struct Watchdog;
    std::unique_ptr<Watchdog> watchdog_;
};

// The deadline of one timed launch of the student's: `multiple` times the reference's time for the same
// launch, and never less than `floor_ms` (module loading, a cold first launch).
constexpr double kDeadlineMultiple = 50, kDeadlineFloorMs = 1000;
double deadline_ms(double reference_ms, double multiple = kDeadlineMultiple, double floor_ms = kDeadlineFloorMs);

// What ends the test when a deadline passes; grader_main installs one that reports the failure on the
// result channel and exits. The default prints the message and exits with status 124.
using TestStopper = void (*)(const std::string& message);
void set_test_stopper(TestStopper stopper);

}  // namespace gpulab
