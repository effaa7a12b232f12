// Each instruction's counts of one launch through CUPTI's SASS metrics, and its line (instruction_counters.h).
#include "gpulab/instruction_counters.h"

#include "cuda_calls.h"
#include "gpulab/kernel_resources.h"
#include "gpulab/sample_counters.h"
#include "gpulab/source_lines.h"

#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <cuda_runtime.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace gpulab {
namespace {

#define GPULAB_SASS(call)                                                                                 \
    do {                                                                                                  \
        const CUptiResult gpulab_r_ = (call);                                                             \
        if (gpulab_r_ != CUPTI_SUCCESS) throw std::runtime_error(std::string(#call) + ": " + cupti_text(gpulab_r_)); \
    } while (0)

// What each counted instruction is asked for. A field the chip does not offer is left out (its count stays 0), but
// the first two are needed: without them nothing can be put down to a line.
enum Field { warp_requests, lanes, global_loads, global_stores, shared_loads, shared_stores, sectors, wavefronts,
             ideal_wavefronts, working_lanes, kFields };
const char* const kMetricNames[kFields] = {
    "smsp__sass_inst_executed",
    "smsp__sass_thread_inst_executed",
    "smsp__sass_inst_executed_op_global_ld",
    "smsp__sass_inst_executed_op_global_st",
    "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st",
    "smsp__sass_sectors_mem_global",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_thread_inst_executed_pred_on",
};

// The chip's metric ids, asked for once.
struct MetricIds {
    std::map<std::uint64_t, Field> field_of;
    std::vector<CUpti_SassMetrics_Config> configs;
    std::string chip;
    bool offers_working_lanes = false;  // whether the chip counts the predicated-on lanes
};

// Every SASS metric the chip offers, on stderr (GPULAB_LIST_SASS_METRICS=1): for whoever brings this file to a new GPU.
void list_sass_metrics(const std::string& chip) {
    CUpti_SassMetrics_GetNumOfMetrics_Params count{CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE};
    count.pChipName = chip.c_str();
    if (cuptiSassMetricsGetNumOfMetrics(&count) != CUPTI_SUCCESS) return;
    std::vector<CUpti_SassMetrics_MetricDetails> metrics(count.numOfMetrics);
    CUpti_SassMetrics_GetMetrics_Params list{CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE};
    list.pChipName = chip.c_str();
    list.numOfMetrics = metrics.size();
    list.pMetricsList = metrics.data();
    if (cuptiSassMetricsGetMetrics(&list) != CUPTI_SUCCESS) return;
    for (const auto& m : metrics)
        std::fprintf(stderr, "[sass metric] %s: %s\n", m.pMetricName, m.pMetricDescription ? m.pMetricDescription : "");
}

MetricIds metric_ids(int device) {
    MetricIds ids;
    CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    GPULAB_SASS(cuptiProfilerInitialize(&init));
    CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = std::size_t(device);
    GPULAB_SASS(cuptiDeviceGetChipName(&chip));
    ids.chip = chip.pChipName;
    if (std::getenv("GPULAB_LIST_SASS_METRICS")) list_sass_metrics(ids.chip);
    for (int f = 0; f < kFields; ++f) {
        CUpti_SassMetrics_GetProperties_Params p{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
        p.pChipName = ids.chip.c_str();
        p.pMetricName = kMetricNames[f];
        if (cuptiSassMetricsGetProperties(&p) != CUPTI_SUCCESS) {
            if (f <= lanes) throw std::runtime_error(std::string("this GPU's CUPTI has no SASS metric ") + kMetricNames[f]);
            continue;
        }
        ids.field_of[p.metric.metricId] = Field(f);
        ids.offers_working_lanes = ids.offers_working_lanes || f == working_lanes;
        ids.configs.push_back({p.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
    }
    return ids;
}

// One instruction's fields, keyed by its cubin, function and offset.
using InstructionKey = std::tuple<std::uint32_t, std::string, std::uint32_t>;
using Counted = std::map<InstructionKey, std::array<unsigned long long, kFields>>;

// lazy: patch only the kernels this launch loads; otherwise every kernel of the context (needed where the kernel was
// loaded, and patched, by an earlier count in this process: lazy patching leaves it unpatched).
Counted count_launch(const std::function<void()>& launch, const MetricIds& ids, int device, bool lazy) {
    CUpti_SassMetricsSetConfig_Params set{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
    std::vector<CUpti_SassMetrics_Config> configs = ids.configs;
    set.numOfMetricConfig = configs.size();
    set.pConfigs = configs.data();
    set.deviceIndex = std::uint32_t(device);
    GPULAB_SASS(cuptiSassMetricsSetConfig(&set));
    const CUcontext ctx = current_context();
    Counted counted;
    std::string failed;
    CUpti_SassMetricsEnable_Params enable{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
    enable.ctx = ctx;
    enable.enableLazyPatching = lazy ? 1 : 0;
    if (const CUptiResult r = cuptiSassMetricsEnable(&enable); r != CUPTI_SUCCESS) {
        failed = "cuptiSassMetricsEnable: " + cupti_text(r);
    } else {
        launch();
        if (const CUresult r = synchronize_context(); r != CUDA_SUCCESS) failed = "the launch failed under the patched kernels";
        CUpti_SassMetricsGetDataProperties_Params props{CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
        props.ctx = ctx;
        if (failed.empty() && cuptiSassMetricsGetDataProperties(&props) == CUPTI_SUCCESS &&
            props.numOfPatchedInstructionRecords > 0) {
            const std::size_t records = props.numOfPatchedInstructionRecords, instances = props.numOfInstances;
            std::vector<CUpti_SassMetrics_Data> data(records);
            std::vector<CUpti_SassMetrics_InstanceValue> values(records * instances);
            for (std::size_t i = 0; i < records; ++i) {
                data[i].structSize = sizeof(CUpti_SassMetrics_Data);
                data[i].pInstanceValues = &values[i * instances];
            }
            CUpti_SassMetricsFlushData_Params flush{CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
            flush.ctx = ctx;
            flush.numOfPatchedInstructionRecords = records;
            flush.numOfInstances = instances;
            flush.pMetricsData = data.data();
            if (const CUptiResult r = cuptiSassMetricsFlushData(&flush); r != CUPTI_SUCCESS) {
                failed = "cuptiSassMetricsFlushData: " + cupti_text(r);
            } else {
                for (const CUpti_SassMetrics_Data& d : data) {
                    auto& fields = counted[{d.cubinCrc, d.functionName ? d.functionName : "", d.pcOffset}];
                    for (std::size_t v = 0; v < instances; ++v) {
                        const auto found = ids.field_of.find(d.pInstanceValues[v].metricId);
                        if (found != ids.field_of.end()) fields[found->second] += d.pInstanceValues[v].value;
                    }
                }
            }
        }
        CUpti_SassMetricsDisable_Params disable{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
        disable.ctx = ctx;
        cuptiSassMetricsDisable(&disable);  // the kernels go back to their own code
    }
    CUpti_SassMetricsUnsetConfig_Params unset{CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
    unset.deviceIndex = std::uint32_t(device);
    cuptiSassMetricsUnsetConfig(&unset);
    if (!failed.empty()) throw std::runtime_error(failed);
    return counted;
}

// The cubins of `library` by the CRC CUPTI names the counted code's cubin with.
std::map<std::uint32_t, Cubin> cubins_by_crc(const std::string& library, std::string* why) {
    std::map<std::uint32_t, Cubin> out;
    for (Cubin& c : cubins_in_library(library, why)) {
        CUpti_GetCubinCrcParams crc{CUpti_GetCubinCrcParamsSize};
        crc.cubin = c.bytes.data();
        crc.cubinSize = c.bytes.size();
        if (cuptiGetCubinCrc(&crc) == CUPTI_SUCCESS) out.emplace(std::uint32_t(crc.cubinCrc), std::move(c));
    }
    return out;
}

SourceLine line_of(const Cubin& cubin, const std::string& function, std::uint32_t offset) {
    CUpti_GetSassToSourceCorrelationParams where{CUpti_GetSassToSourceCorrelationParamsSize};
    where.cubin = cubin.bytes.data();
    where.cubinSize = cubin.bytes.size();
    where.functionName = function.c_str();
    where.pcOffset = offset;
    if (cuptiGetSassToSourceCorrelation(&where) != CUPTI_SUCCESS || !where.fileName) return {};
    std::string file = where.fileName;
    if (!file.empty() && file[0] != '/' && where.dirName && *where.dirName) file = std::string(where.dirName) + "/" + file;
    std::free(where.fileName);  // CUPTI's to free
    if (where.dirName) std::free(where.dirName);
    return source_line_at(file, int(where.lineNumber));
}

// `working`: whether the lanes counted are those with the instruction's predicate true, the lanes that access memory
// (CPU execution mode's lanes); a short path the compiler predicates instead of branching around keeps its other
// lanes active but idle.
InstructionCount count_of(const std::array<unsigned long long, kFields>& f, std::uint32_t offset, bool working) {
    InstructionCount i;
    i.ip = offset;
    const unsigned long long requests = f[warp_requests];
    const unsigned long long active = working ? f[working_lanes] : f[lanes];
    if (f[global_loads] > 0) i.load_requests = requests, i.load_lanes = active, i.load_sectors = f[sectors];
    else if (f[global_stores] > 0) i.store_requests = requests, i.store_lanes = active, i.store_sectors = f[sectors];
    // Each shared request takes one wavefront at best where the chip gives no ideal count (4-byte lanes).
    const unsigned long long ideal = f[ideal_wavefronts] > 0 ? f[ideal_wavefronts] : requests;
    const unsigned long long extra = f[wavefronts] > ideal ? f[wavefronts] - ideal : 0;
    if (f[shared_loads] > 0) i.shared_load_requests = requests, i.shared_load_conflicts = extra;
    else if (f[shared_stores] > 0) i.shared_store_requests = requests, i.shared_store_conflicts = extra;
    // LaneCount::average: the lanes that idled in this instruction's requests.
    i.idle_requests = 32 * requests > active ? 32 * requests - active : 0;
    return i;
}

bool is_memory(const InstructionCount& i) {
    return i.memory_requests() > 0;
}

}  // namespace

InstructionCounts read_instruction_counters(const std::function<void()>& launch, const std::string& library) {
    const auto start = std::chrono::steady_clock::now();
    InstructionCounts out;
    static std::mutex mutex;  // one patched launch at a time in a process
    std::lock_guard<std::mutex> guard(mutex);
    try {
        int device = 0;
        if (cudaGetDevice(&device) != cudaSuccess) throw std::runtime_error("no CUDA device");
        static const MetricIds ids = metric_ids(device);
        Counted counted;
        try {
            counted = count_launch(launch, ids, device, true);
        } catch (const std::exception&) {
            // The range profiler, enabled while this process holds the counters, may keep the patching out: hand
            // the counters back (the next drawn sample enables it again) and count once more.
            release_counters();
            counted = count_launch(launch, ids, device, true);
        }
        // A kernel counted before in this process (a second timed size) came back without counts with lazy patching
        // (an H200): count again with every loaded kernel patched. On an H100 that failed for labs 05 and 06
        // (cuptiSassMetricsSetConfig: out of memory); the other size's lines stand then.
        if (counted.empty()) {
            try {
                counted = count_launch(launch, ids, device, false);
            } catch (const std::exception& e) {
                throw std::runtime_error(std::string("a kernel counted already in this process could not be counted "
                                                     "again (") + e.what() + "); the lines of its other timed size, "
                                                     "where named, stand for it");
            }
        }
        std::string no_cubin;
        const std::map<std::uint32_t, Cubin> cubins = cubins_by_crc(library, &no_cubin);
        std::map<std::string, double> barriers;
        for (const auto& [key, fields] : counted) {
            const auto& [crc, function, offset] = key;
            InstructionCount count = count_of(fields, offset, ids.offers_working_lanes);
            const auto cubin = cubins.find(crc);
            const SourceLine line = cubin == cubins.end() ? SourceLine{} : line_of(cubin->second, function, offset);
            if (!is_memory(count)) {
                // A barrier's instructions, by the line they come from: where its warps wait (barrier-stalls).
                if (line.quoted().find("__syncthreads") != std::string::npos) barriers[line.quoted()] += double(fields[warp_requests]);
                continue;
            }
            if (line.file.empty() && out.why.empty())
                out.why = cubin == cubins.end()
                              ? "the counted kernel's cubin is not in " + library + (no_cubin.empty() ? "" : " (" + no_cubin + ")")
                              : "the GPU build has no line table (built without -lineinfo?)";
            out.instructions.push_back(count);
            out.lines.push_back(line.quoted());
        }
        out.barrier_lines.assign(barriers.begin(), barriers.end());
        if (out.instructions.empty())
            out.why = counted.empty() ? "the GPU's per-instruction counters gave no counts for this launch"
                                      : "no memory instruction was counted";
    } catch (const std::exception& e) {
        out.instructions.clear(), out.lines.clear();
        out.why = std::string("the GPU's per-instruction counters could not be read: ") + e.what();
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

}  // namespace gpulab
