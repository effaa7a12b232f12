// The roofline report every lab with timed kernels gives (Report.Roofline): each timed kernel as a point at
// its arithmetic intensity (the flops a lab states per launch over the compulsory bytes: every input read
// once, every output written once) and its measured throughput, under the roofs of this GPU: the bandwidth
// of a device copy measured in the same run, and the compute peaks from the device's facts. The student's
// kernels stand beside the reference's, the instructor's expert kernel and, where one exists, a library
// (cuBLAS): how far a kernel is from what the hardware allows, and from what a better kernel reaches.
//
// The same figures go three ways: a table in the log, roofline.json + roofline.png in the artifacts folder
// (grader/plots/gpulab_plot.py roofline), and the test's "roofline" property in summary.json.
#pragma once

#include "gpulab/timing.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpulab {

// What this GPU can do: the roofs of its roofline.
struct Roofs {
    double copy_gbs = 0;     // a device-to-device copy, measured now (read + write)
    double fp32_gflops = 0;  // SMs x lanes x 2 (an FMA) x the highest clock; 0 where the architecture is unknown
    double fp64_gflops = 0;
    double int32_gops = 0;   // integer adds and multiplies (the blur's arithmetic)
};

// Measures the copy over `copy_bytes` and reads the peaks from the device's facts.
Roofs measure_roofs(std::size_t copy_bytes, const TimingOptions& options);

// The compute roof a kernel of this arithmetic ("fp32", "fp64", "int32") is under, in G operations/s.
double compute_roof(const Roofs& roofs, const std::string& arithmetic);

// One kernel for the chart.
struct RooflineKernel {
    std::string label;       // "your tiled", "reference tiled", "expert", "cuBLAS"
    std::string role;        // "student", "reference", "expert" or "library"
    std::string arithmetic;  // "fp32", "fp64" or "int32": which compute roof applies
    double operations = 0;   // per launch, as the lab states them (flops, or integer operations)
    double bytes = 0;        // compulsory bytes per launch
    std::function<void()> launch;
    // The student's and the expert's: fresh inputs before every sample, a sample of the output checked after
    // it, the hardware's floor, and (the student's only) the kernels approved at the technique size
    // (timed_work.h): the expert may pick its kernel by size, as a tuned library does. A kernel whose timed
    // launches break these is left off the chart, with why.
    std::shared_ptr<TimedWork> work;
    std::string absent;  // set instead of launch: why this kernel is not on the chart
};

struct RooflinePoint {
    std::string label, role, arithmetic;
    double operations = 0, bytes = 0;
    double ms = 0;
    double intensity = 0;   // operations per compulsory byte
    double gops = 0;        // operations per second / 1e9
    double gbs = 0;         // compulsory bytes per second / 1e9
    double roof_gops = 0;   // what the roofline allows at this intensity: min(copy x intensity, compute peak)
    double of_roof = 0;     // gops / roof_gops
    std::string absent;     // not measured, and why (then the figures are 0)
};

struct Roofline {
    Roofs roofs;
    std::string device, problem;  // "NVIDIA H100 80GB HBM3", "8192 x 8192 x 3 bytes"
    std::vector<RooflinePoint> points;
};

// The student's kernel of one technique and the reference's, as two points ("your tiled", "reference tiled").
// The student's first launch at this size runs under the deadline the reference's time sets, as in the speed
// tests (timed_work.h), so a launch that computes on the host costs seconds here too.
void add_student_and_reference(std::vector<RooflineKernel>& kernels, const std::string& technique,
                               const std::string& arithmetic, double operations, double bytes,
                               const std::function<void()>& yours, const std::function<void()>& theirs,
                               std::shared_ptr<TimedWork> work);

// Times every kernel alone (warm-up, then the median of the samples). Never throws for a student's kernel:
// what went wrong becomes the point's `absent`.
Roofline measure_roofline(const Roofs& roofs, const std::string& problem, const std::vector<RooflineKernel>& kernels,
                          const TimingOptions& options);

// Prints the table, writes roofline.json and roofline.png (artifacts folder), records the "roofline"
// property (summary.json) and the grade table's figure. `lab_tag` starts each log line ("[lab 03]").
void publish_roofline(const Roofline& roofline, const std::string& lab_tag);

// The roofline as JSON text (what roofline.json and the property hold).
std::string roofline_json(const Roofline& roofline);

}  // namespace gpulab
