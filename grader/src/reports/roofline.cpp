#include "gpulab/roofline.h"

#include "gpulab/gpu_profile.h"

#include "gpulab/cuda_check.h"
#include "gpulab/device_facts.h"
#include "gpulab/phase_clock.h"

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace gpulab {
namespace {

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
        // The expert's row of Report.GpuProfile: one of its samples here is drawn and profiled (timed_samples.h).
        TimingOptions timing = options;
        if (k.role == "expert" && k.work) {
            timing.profile_roles = {"expert"};
            if (k.work->suite.empty()) {  // the expert has no timed launch of its own: it stands beside the student's
                const TimedLaunchName beside = expert_beside();
                k.work->suite = beside.suite, k.work->instance = beside.instance;
            }
        }
        const std::vector<Samples> samples = time_interleaved({k.launch}, timing, {}, k.work.get(), &honesty);
        const double ms = samples.at(0).median();
        if (k.work) honesty.too_fast = too_fast_message(*k.work, ms);
        if (!honesty.clean()) {
            p.absent = honesty.explain();
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
    const PhaseClock phase("roofline: copy bandwidth");
    Roofs roofs;
    roofs.copy_gbs = copy_bandwidth_gbs(copy_bytes, options);
    roofs.fp32_gflops = 1e3 * peak_tflops("fp32");
    roofs.fp64_gflops = 1e3 * peak_tflops("fp64");
    roofs.int32_gops = 1e3 * peak_tflops("int32");
    return roofs;
}

double compute_roof(const Roofs& roofs, const std::string& arithmetic) {
    if (arithmetic == "fp32") return roofs.fp32_gflops;
    if (arithmetic == "fp64") return roofs.fp64_gflops;
    if (arithmetic == "int32") return roofs.int32_gops;
    return 0;
}

void add_student_and_reference(std::vector<RooflineKernel>& kernels, const std::string& technique,
                               const std::string& arithmetic, double operations, double bytes,
                               const std::function<void()>& yours, const std::function<void()>& theirs,
                               std::shared_ptr<TimedWork> work) {
    first_launch_under_deadline(*work, yours, theirs);
    kernels.push_back({"your " + technique, "student", arithmetic, operations, bytes, yours, std::move(work)});
    kernels.push_back({"reference " + technique, "reference", arithmetic, operations, bytes, theirs});
}

Roofline measure_roofline(const Roofs& roofs, const std::string& problem, const std::vector<RooflineKernel>& kernels,
                          const TimingOptions& options) {
    Roofline roofline{roofs, device_facts().name, problem, {}};
    for (const RooflineKernel& k : kernels) {
        const PhaseClock phase("roofline: " + k.label);
        roofline.points.push_back(measure(roofs, k, options));
    }
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
