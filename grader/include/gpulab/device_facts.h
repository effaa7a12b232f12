// What the grader records about the machine with every result, so a figure is never read without
// knowing which GPU produced it.
#pragma once

#include <string>

namespace gpulab {

struct DeviceFacts {
    bool available = false;
    bool emulated = false;  // CPU execution mode: kernels run on the CPU, for correctness only
    std::string unavailable_reason;  // set when !available
    // In CPU execution mode, what runs the kernels: its name, worker threads (sm_count), this machine's memory and L2
    // (from gpulab::cpu::executor_facts(), not the CUDA runtime's calls, which answer as the lab's GPU does).
    std::string name;
    std::string answers_as;  // CPU execution mode only: the GPU whose answers its runtime gives, and from where
    int compute_major = 0, compute_minor = 0;
    int sm_count = 0;
    // The SMs CUDA's runtime answers: the GPU's own; in CPU execution mode the lab's GPU's (what a launch is judged
    // against, "grid-smaller-than-gpu"), not the worker threads above.
    int answered_sm_count = 0;
    long long global_mem_bytes = 0;
    int l2_bytes = 0;
    int sm_clock_mhz = 0;      // 0 when the runtime does not report it
    int memory_clock_mhz = 0;  // 0 when the runtime does not report it
    int memory_bus_bits = 0;
    int driver_version = 0;   // e.g. 13000
    int runtime_version = 0;
    std::string to_json() const;
    std::string one_line() const;
};

// A CUDA version number as people write it: 13000 -> "13.0", 12040 -> "12.4".
inline std::string cuda_version_text(long version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

// Queries device 0 once per process; never throws.
const DeviceFacts& device_facts();

}  // namespace gpulab
