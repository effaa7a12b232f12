// How every speed test reports itself: the same figures, in the same words, in every lab.
#pragma once

#include "gpulab/timing.h"

#include <string>

namespace gpulab {

struct Throughput {
    double student_gbs = 0, reference_gbs = 0, copy_gbs = 0;
    std::string figure, threshold;  // as recorded for the grade table; a lab may append to the figure
};

// Records the speed figures as test properties (student/reference ms and GB/s, copy GB/s) and the
// grade table's figure ("0.238 ms, 2256 GB/s (78% of copy), 1.00x ref"). `bytes` is what the kernel
// must move at least (each input read once, each output written once); `bar` names what the
// fraction is held to, e.g. "ref tiled".
Throughput record_speed(const SpeedVerdict& verdict, double bytes, double copy_gbs, const std::string& bar = "ref");

// The figure of a speed test whose timed launches did not do the work (verdict.honest() is false): no
// speed is shown (a figure above what the GPU can do is no figure), only why.
inline const char* kNotTheWork = "no speed figure: the timed launch did not do the work";

// The failure message of such a test: "<call> earns no speed points. <every problem found>".
std::string dishonest_speed(const std::string& call, const SpeedVerdict& verdict);

// "0.241 ms = 2230 GB/s against 0.238 ms = 2256 GB/s; a device-to-device copy moves 2890 GB/s on this
// GPU", for a failure message.
std::string speed_comparison(const SpeedVerdict& verdict, const Throughput& throughput);

}  // namespace gpulab
