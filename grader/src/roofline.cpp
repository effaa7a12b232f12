#include "gpulab/roofline.h"

#include "gpulab/cuda_check.h"
#include "gpulab/device_facts.h"
#include "gpulab/format.h"

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace gpulab {
namespace {

// Lanes per SM that do one operation of this arithmetic per clock. FP32: Volta, Turing and A100 64; GA10x,
// Ada, Hopper and Blackwell 128. FP64: the data-centre parts (P100, V100, A100: 32; H100, B200: 64) at half
// their FP32 rate or better, the others 2 (1/64 of FP32). INT32: 64 from Volta on.
int lanes_per_sm(const std::string& arithmetic) {
    const DeviceFacts& d = device_facts();
    const int cc = d.compute_major * 10 + d.compute_minor;
    if (arithmetic == "fp32") return (cc == 70 || cc == 72 || cc == 75 || cc == 80) ? 64 : cc >= 86 ? 128 : 0;
    if (arithmetic == "fp64") return (cc == 60 || cc == 70 || cc == 80) ? 32 : (cc == 90 || cc == 100) ? 64 : cc >= 61 ? 2 : 0;
    if (arithmetic == "int32") return cc >= 70 ? 64 : 0;
    return 0;
}

// A fused multiply-add counts as two operations, as peak figures do.
double peak_gops(const std::string& arithmetic) {
    const DeviceFacts& d = device_facts();
    if (!d.available || d.emulated || d.sm_clock_mhz <= 0) return 0;
    return double(d.sm_count) * lanes_per_sm(arithmetic) * 2.0 * d.sm_clock_mhz / 1e3;
}

double attainable(const Roofs& roofs, const std::string& arithmetic, double intensity) {
    const double memory = roofs.copy_gbs * intensity, compute = compute_roof(roofs, arithmetic);
    return compute > 0 ? std::min(memory, compute) : memory;
}

RooflinePoint measure(const Roofs& roofs, const RooflineKernel& k, const TimingOptions& options) {
    RooflinePoint p{k.label, k.role, k.arithmetic, k.operations, k.bytes};
    p.intensity = k.bytes > 0 ? k.operations / k.bytes : 0;
    p.roof_gops = attainable(roofs, k.arithmetic, p.intensity);
    if (!k.absent.empty()) {
        p.absent = k.absent;
        return p;
    }
    // The expert's launch may pick its kernel by size (a tuned library does): fresh inputs, the checked output
    // and the floor hold it, the approved-kernel rule (which is about what a student's technique tests saw) not.
    if (k.role == "expert" && k.work) k.work->approved.clear();
    try {
        Honesty honesty;
        const std::vector<Samples> samples = time_interleaved({k.launch}, options, {}, k.work.get(), &honesty);
        const double ms = samples.at(0).median();
        if (!honesty.clean()) {
            p.absent = honesty.explain();
        } else if (k.work && ms < k.work->floor_ms) {
            p.absent = "faster than this GPU can do the work (" + fixed(ms, 3) + " ms, where the work takes at least " +
                       fixed(k.work->floor_ms, 3) + " ms: " + k.work->floor_basis + "): the timed launch did not compute it";
        } else {
            p.ms = ms;
            p.gops = k.operations / (ms * 1e6);
            p.gbs = k.bytes / (ms * 1e6);
            p.of_roof = p.roof_gops > 0 ? p.gops / p.roof_gops : 0;
        }
    } catch (const std::exception& e) {
        p.absent = e.what();
        cudaGetLastError();  // a launch error is this kernel's, not the next one's
    }
    return p;
}

}  // namespace

Roofs measure_roofs(std::size_t copy_bytes, const TimingOptions& options) {
    Roofs roofs;
    roofs.copy_gbs = copy_bandwidth_gbs(copy_bytes, options);
    roofs.fp32_gflops = peak_gops("fp32");
    roofs.fp64_gflops = peak_gops("fp64");
    roofs.int32_gops = peak_gops("int32");
    return roofs;
}

double compute_roof(const Roofs& roofs, const std::string& arithmetic) {
    if (arithmetic == "fp32") return roofs.fp32_gflops;
    if (arithmetic == "fp64") return roofs.fp64_gflops;
    if (arithmetic == "int32") return roofs.int32_gops;
    return 0;
}

Roofline measure_roofline(const Roofs& roofs, const std::string& problem, const std::vector<RooflineKernel>& kernels,
                          const TimingOptions& options) {
    Roofline roofline{roofs, device_facts().name, problem, {}};
    for (const RooflineKernel& k : kernels) roofline.points.push_back(measure(roofs, k, options));
    return roofline;
}

std::string roofline_json(const Roofline& r) {
    nlohmann::json points = nlohmann::json::array();
    for (const RooflinePoint& p : r.points) {
        nlohmann::json j{{"label", p.label}, {"role", p.role}, {"arithmetic", p.arithmetic},
                         {"operations", p.operations}, {"bytes", p.bytes}, {"intensity", p.intensity},
                         {"roof_gops", p.roof_gops}};
        if (p.absent.empty())
            j.update({{"ms", p.ms}, {"gops", p.gops}, {"gbs", p.gbs}, {"of_roof", p.of_roof},
                      {"of_copy", r.roofs.copy_gbs > 0 ? p.gbs / r.roofs.copy_gbs : 0.0}});
        else
            j["absent"] = p.absent;
        points.push_back(j);
    }
    const nlohmann::json doc{{"device", r.device},
                             {"problem", r.problem},
                             {"roofs", {{"copy_gbs", r.roofs.copy_gbs},
                                        {"fp32_gflops", r.roofs.fp32_gflops},
                                        {"fp64_gflops", r.roofs.fp64_gflops},
                                        {"int32_gops", r.roofs.int32_gops}}},
                             {"points", points}};
    return doc.dump();
}

}  // namespace gpulab
