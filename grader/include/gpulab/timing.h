// Kernel timing by the rules of DESIGN.md: CUDA events around the launch only, warm-up, at least
// ten samples, the median, an optional L2 flush between samples, and the student's kernel
// interleaved with the reference's in one process so both see the same clocks and neighbours.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gpulab {

struct TimingOptions {
    int warmup = 3;
    int samples = 21;
    bool flush_l2 = false;  // worth it when the working set is within a few times the L2 size
};

struct Samples {
    std::vector<double> ms;
    double median() const;
    double quantile(double q) const;
    // Half the interquartile range over the median: the relative noise of this series.
    double relative_spread() const;
};

// Runs each launch `warmup` times, then `samples` rounds of A, B, A, B ... timing each launch alone.
// A launch that fails throws CudaError.
std::vector<Samples> time_interleaved(const std::vector<std::function<void()>>& launches,
                                      const TimingOptions& options);

// Device-to-device copy bandwidth in GB/s (bytes read + bytes written), measured now.
double copy_bandwidth_gbs(std::size_t bytes, const TimingOptions& options);

// A throughput verdict: student against reference, re-measured while it is within noise of the threshold.
struct SpeedVerdict {
    double student_ms = 0, reference_ms = 0;
    double fraction = 0;   // reference_ms / student_ms: 1.0 means as fast as the reference
    double noise = 0;      // relative noise of the fraction, from the samples' spread
    double threshold = 0;
    int rounds = 0;
    bool passed() const { return fraction >= threshold; }
};

// Times student and reference interleaved; while |fraction - threshold| is within the noise and
// rounds remain, measures again and pools the samples.
SpeedVerdict judge_speed(const std::function<void()>& student, const std::function<void()>& reference,
                         double threshold, int max_rounds, const TimingOptions& options);

}  // namespace gpulab
