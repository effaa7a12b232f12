#include "gpulab/device_facts.h"

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>
#ifdef GPULAB_CPU_MODE
#include <gpulab_cpu/executor_facts.h>
#endif

#include <sstream>

namespace gpulab {
namespace {

#ifdef GPULAB_CPU_MODE
// CPU execution mode's runtime answers CUDA's device questions as the lab's GPU does (so that student code cannot
// tell the modes apart); the grader records what really ran the kernels, from the executor itself.
DeviceFacts query() {
    const gpulab::cpu::ExecutorFacts executor = gpulab::cpu::executor_facts();
    DeviceFacts facts;
    facts.available = true;
    facts.emulated = true;
    facts.name = executor.name;
    facts.answers_as = executor.answers_from;
    facts.compute_major = GPULAB_CPU_CUDA_ARCH / 100;  // what device code is compiled as (__CUDA_ARCH__)
    facts.compute_minor = GPULAB_CPU_CUDA_ARCH / 10 % 10;
    facts.sm_count = executor.workers;  // one worker thread runs one block at a time, as an SM would
    if (cudaDeviceGetAttribute(&facts.answered_sm_count, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) {
        cudaGetLastError();
        facts.answered_sm_count = 0;
    }
    facts.global_mem_bytes = static_cast<long long>(executor.host_memory_bytes);
    facts.l2_bytes = executor.host_l2_bytes;
    cudaRuntimeGetVersion(&facts.runtime_version);
    return facts;
}
#else
int attribute(cudaDeviceAttr attr) {
    int value = 0;
    if (cudaDeviceGetAttribute(&value, attr, 0) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return value;
}

DeviceFacts query() {
    DeviceFacts facts;
    cudaDriverGetVersion(&facts.driver_version);
    cudaRuntimeGetVersion(&facts.runtime_version);
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        cudaGetLastError();
        facts.unavailable_reason = status != cudaSuccess
                                       ? std::string("no CUDA GPU found (") + cudaGetErrorString(status) + ")"
                                       : std::string("no CUDA GPU found");
        return facts;
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        facts.unavailable_reason = "cudaGetDeviceProperties failed";
        return facts;
    }
    facts.available = true;
    facts.name = prop.name;
    facts.compute_major = prop.major;
    facts.compute_minor = prop.minor;
    facts.sm_count = prop.multiProcessorCount;
    facts.answered_sm_count = prop.multiProcessorCount;
    facts.global_mem_bytes = static_cast<long long>(prop.totalGlobalMem);
    facts.l2_bytes = prop.l2CacheSize;
    facts.memory_bus_bits = prop.memoryBusWidth;
    facts.sm_clock_mhz = attribute(cudaDevAttrClockRate) / 1000;
    facts.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate) / 1000;
    return facts;
}
#endif

}  // namespace

const DeviceFacts& device_facts() {
    static const DeviceFacts facts = query();
    return facts;
}

std::string DeviceFacts::to_json() const {
    nlohmann::json j = {{"available", available},
                        {"emulated", emulated},
                        {"name", name},
                        {"compute_capability", std::to_string(compute_major) + "." + std::to_string(compute_minor)},
                        {"sm_count", sm_count},
                        {"global_mem_bytes", global_mem_bytes},
                        {"l2_bytes", l2_bytes},
                        {"sm_clock_mhz", sm_clock_mhz},
                        {"memory_clock_mhz", memory_clock_mhz},
                        {"memory_bus_bits", memory_bus_bits},
                        {"driver_version", driver_version},
                        {"runtime_version", runtime_version}};
    if (!available) j["unavailable_reason"] = unavailable_reason;
    if (emulated) j["answers_as"] = answers_as;
    return j.dump();
}

std::string DeviceFacts::one_line() const {
    if (!available) return unavailable_reason;
    if (emulated)
        return name + ": kernels run on the CPU (" + std::to_string(sm_count) +
               " threads), correctness only; CUDA's device questions get the answers of " + answers_as;
    std::ostringstream out;
    out << name << " (sm_" << compute_major << compute_minor << ", " << sm_count << " SMs, "
        << (l2_bytes >> 20) << " MiB L2";
    if (sm_clock_mhz) out << ", " << sm_clock_mhz << " MHz";
    out << ", CUDA driver " << cuda_version_text(driver_version) << ")";
    return out.str();
}

}  // namespace gpulab
