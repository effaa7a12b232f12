// CPU execution mode's count of a timed launch, as the GPU's timing process compares it with the counters of its
// drawn timed samples (issue 43).
//
// The counted technique test of a lab (Technique.ComputesFromSharedTile and its kin, "run_in": "cpu") counts each
// timed launch of the kernel it teaches on a sample of its blocks, on inputs drawn like the timed samples' (gpulab/
// timed_launch_count.h), and records what it counted per output element in the test property "timed_count"
// (record_counted_work). gpulab-grade hands the properties of decided tests to the graders it starts later (the
// handshake's "handed_over", result_channel.h), so the speed test that times the launch (a GPU grader, a later
// wave) and Technique.SameWorkOnGpu (after the speed test) read the count back (counted_work).
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpulab {

struct CountedWork {
    std::string suite, instance;  // the timed launch's GeometryCheck: "TiledStep", "8192x8192"
    std::string call;             // "launch_step_tiled at 8192x8192 (32 of its 262144 blocks counted)"
    // How messages name the figures: "your tiled kernel reads its input 1.3 times per cell".
    std::string kernel = "your kernel", element = "input", per = "cell";
    double outputs = 0;        // output elements the launch computes (the GPU's bytes are divided by these)
    double element_bytes = 4;  // bytes per element read (a float: 4)
    // Elements read per output over the whole grid, as the threads asked for them (bytes / element_bytes / outputs):
    // from global memory (every buffer of the launch), and from shared memory (NaN where not counted).
    double global_per_output = std::numeric_limits<double>::quiet_NaN();
    double shared_per_output = std::numeric_limits<double>::quiet_NaN();
    // Shared bytes read per shared byte written in the counted blocks, where shared_per_output is NaN because each
    // block was counted only up to a budget of accesses (labs 05 and 06: a coarsened block walks every plane of its
    // column). The budget holds a block's first planes, staged before any is read, so this is at most the whole
    // block's figure: a lower bar for the GPU's, never a higher one. NaN where shared memory was not counted.
    double shared_per_staged = std::numeric_limits<double>::quiet_NaN();
};

// "<suite> <instance>": the key of a timed launch in these records.
inline std::string counted_work_key(const std::string& suite, const std::string& instance) {
    return suite + " " + instance;
}

nlohmann::json to_json(const CountedWork& w);
CountedWork counted_work_of(const nlohmann::json& j);

// Records `works` in the current test's property "timed_count" (one JSON object keyed by counted_work_key).
void record_counted_work(const std::vector<CountedWork>& works);

// The count of the timed launch (suite, instance) that an earlier test of this grading recorded and gpulab-grade
// handed over; false with *why where there is none (why names the test that would have counted it).
bool counted_work(const std::string& suite, const std::string& instance, CountedWork& out, std::string* why);

}  // namespace gpulab
