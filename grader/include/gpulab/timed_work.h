// What every timed launch of a student's kernel is held to, so that speed points pay for the work itself:
//
//  - it solves a fresh problem: before each sample (outside the timed window) the grader writes new inputs
//    on the device, and after it checks the output (sampled cells recomputed in double on the host);
//  - it is possible: its time is at least what the GPU needs for the work (the compulsory bytes at the
//    bandwidth of a device copy measured in the same run, or the flops at the FP32 peak);
//  - it is the approved kernel: the kernels it launches are the ones the student's launch function ran
//    at the technique checks' size (the same kernel, block shape and shared memory per block), and it
//    copies, waits for the device and allocates nothing (no answer computed elsewhere or remembered);
//  - it is the checked launch again: the launch function's first launch at the timed size, whose output the
//    speed test checked, ran the same kernels with the same arguments and copied the same values to
//    __constant__ and __device__ variables (same_as_checked.h), so no flag flipped by a call count or a clock;
//  - it ends in reasonable time: a launch still running long after the reference's stops the test.
#pragma once

#include "gpulab/launch_recorder.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpulab {

struct TimedWork {
    std::string call;  // "launch_matmul_tiled at N = 4096", for messages
    // Writes a new problem's inputs on the device, drawn from `seed` (fresh_inputs.h). Outside the timed window.
    std::function<void(std::uint64_t seed)> renew;
    std::uint64_t seed = 0;  // the first sample's; each later sample draws from the next
    // After each timed launch of the student's: "" when its output is right for the inputs it was given,
    // else what is wrong (which cells, what they hold, what they should hold).
    std::function<std::string()> check;
    // The least time in which this GPU can do the work, and why, in words.
    double floor_ms = 0;
    std::string floor_basis;
    // The student's launches at the technique checks' size (probe_launches): every timed launch must match one.
    std::vector<RecordedLaunch> approved;
    std::string approved_at;  // "64x48x96"
    // The student's first launch at the timed size, whose output the speed test checks: recorded by
    // first_launch_under_deadline (its arguments classified there, while its buffers live). Every timed launch
    // must repeat it (same_as_checked.h). Empty where no launch was checked (the expert's, on the roofline).
    std::vector<RecordedLaunch> checked;
    std::vector<RecordedCall> checked_calls;
    // The registered timed launch (launch_geometry.h) this work times: the GeometryCheck whose call is `call`,
    // e.g. "TiledStep" and "8192x8192" (name_after_timed_launch). Empty where none is registered (the expert's).
    std::string suite, instance;
    // A student's timed launch still running after this many ms stops the test (0: no deadline).
    double deadline_ms = 0;
    double reference_ms = 0;  // what the deadline was derived from, for its message
};

// What the timing found wrong with the student's timed launches: each "" when nothing was.
struct Honesty {
    std::string wrong_result;  // the output of a timed launch was not right for its fresh inputs
    std::string unapproved;    // a timed launch ran other kernels than the approved ones, or copied, waited, allocated
    std::string too_fast;      // faster than this GPU can do the work
    bool clean() const { return wrong_result.empty() && unapproved.empty() && too_fast.empty(); }
    std::string explain() const;  // every problem found, one sentence each, for a failure message
};

// The floor of memory-bound work: `bytes` (each input read once, each output written once) moved at `margin`
// times the device copy's measured bandwidth (a margin for inputs that stay in L2, and for kernels that beat
// cudaMemcpy's own copy). Sets floor_ms and floor_basis.
void set_memory_floor(TimedWork& work, double bytes, double copy_gbs, double margin);
// The floor of compute-bound work: `flops` at the FP32 peak of this GPU (SMs x FP32 lanes x 2 x the
// highest clock). No floor where the peak is unknown (an unknown architecture).
void set_compute_floor(TimedWork& work, double flops);

// This GPU's peak in T operations/s for "fp32", "fp64" or "int32" arithmetic (SMs x lanes x 2 x the highest
// clock), from its facts; 0 when unknown or without a GPU.
double peak_tflops(const std::string& arithmetic);
double fp32_peak_tflops();

// "" when a median of `median_ms` is possible for `work`, else why not: it beats the work's floor.
std::string too_fast_message(const TimedWork& work, double median_ms);

// Runs `launch` once while recording: the launches it made, to be approved (TimedWork::approved).
std::vector<RecordedLaunch> probe_launches(const std::function<void()>& launch);

// Sets work.suite and work.instance from the registered timed launch whose call is work.call; false, leaving them
// empty, where none is. Call after register_geometry_checks (from a test).
bool name_after_timed_launch(TimedWork& work);

// "" when `launches` and `calls` (one timed launch's) are what the approved launches allow and repeat the
// checked launch (work.checked, where one was recorded), else why not. The launches' arguments are classified
// here (classify_arguments): call it while the buffers the launch was given are allocated.
std::string audit_timed_launch(const TimedWork& work, const std::vector<RecordedLaunch>& launches,
                               const std::vector<RecordedCall>& calls);

// Times one launch of the reference's (after one warm-up launch), for a deadline.
double time_reference_once(const std::function<void()>& launch);

// Sets work.reference_ms and work.deadline_ms from one launch of the reference's, then runs the student's
// first launch at the timed size under that deadline, recording it into work.checked and work.checked_calls,
// and waits for it (what went wrong, if anything, is left for the caller's check_student_launch to report).
// `student` must not record launches itself (one LaunchRecorder at a time): read work.checked instead.
void first_launch_under_deadline(TimedWork& work, const std::function<void()>& student,
                                 const std::function<void()>& reference);

// The message of a deadline that passed: the launch was too slow to time.
std::string too_slow_message(const std::string& call, double limit_ms, double reference_ms);

}  // namespace gpulab
