// Reading a launch's counters in this process with CUPTI's range profiler (sample_counters.h).
//
// One session per process, set up at the first read: the profiler, the chip's host object and the configuration
// image of the full metric list. The range profiler is enabled on the context at a read and stays enabled while the
// profiling lock is held (enabling it costs 5 ms and disabling 18 ms on an H100, and a kernel's SASS is patched
// again after each enable: 170 ms); while enabled and idle it costs a timed launch nothing (sample_counters.h).
// When the lock's last holder lets go, it is disabled (release_counters): an enabled profiler holds the GPU's
// counters against every other process. At each enable: the counter data image sized, initialized, and the one
// configuration set. Each read: start, run the launch (auto ranges: one range per kernel; kernel replay: CUPTI
// replays each kernel once per pass and restores the memory it may write), wait for the context through the driver
// (a runtime wait would be recorded as the launch's own: the caller records the launch), stop, decode, evaluate
// each range, initialize the image again.
#include "gpulab/sample_counters.h"

#include "cuda_calls.h"

#include "gpulab/access_diagnosis.h"
#include "gpulab/cuda_check.h"
#include "gpulab/device_facts.h"
#include "gpulab/gpu_profile.h"

#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <dlfcn.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace gpulab {
namespace {

// A call that fails says which, in words.
struct CuptiFailure : std::runtime_error {
    CuptiFailure(const char* call, CUptiResult r) : std::runtime_error(std::string(call) + ": " + cupti_text(r)), result(r) {}
    CUptiResult result;
};
#define GPULAB_CUPTI(call)                                       \
    do {                                                         \
        const CUptiResult gpulab_r_ = (call);                    \
        if (gpulab_r_ != CUPTI_SUCCESS) throw CuptiFailure(#call, gpulab_r_); \
    } while (0)

// The machine's reason a CUPTI failure gives, in a student's words, where it is one.
std::string machine_reason(const CuptiFailure& f) {
    switch (f.result) {
        case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
            return "this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM): an administrator can "
                   "allow it for every user with the NVIDIA driver's module option NVreg_RestrictProfilingToAdminUsers=0 "
                   "(see https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
        case CUPTI_ERROR_NOT_SUPPORTED:
        case CUPTI_ERROR_NOT_COMPATIBLE:
            return std::string("CUPTI cannot read this GPU's counters (") + f.what() + ")";
        case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
            return std::string("another profiler is attached to this process (") + f.what() + ")";
        default:
            return std::string("the GPU's counters could not be read (") + f.what() + ")";
    }
}

void load_perfworks_beside_cupti();

// Another process's profiler holds the counters for a moment (its test ending): wait for them, up to a limit.
template <class Call>
void when_counters_free(const char* what, Call call) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
        const CUptiResult r = call();
        if (r == CUPTI_SUCCESS) return;
        if (r != CUPTI_ERROR_HARDWARE_BUSY || std::chrono::steady_clock::now() > until) throw CuptiFailure(what, r);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

struct ListConfig {
    std::vector<std::string> names;
    std::vector<const char*> pointers;  // into names
    CUpti_Profiler_Host_Object* host = nullptr;
    std::vector<std::uint8_t> config, counter_data;
    int passes = 0;
};

class Session {
public:
    // Set up once; false with *why (the machine's reason) where counters cannot be read here.
    bool ready(std::string* why) {
        std::call_once(once_, [this] {
            GpuProfileLock counters_to_ourselves;
            try {
                set_up();
            } catch (const CuptiFailure& f) {
                why_ = machine_reason(f);
            } catch (const std::exception& e) {
                why_ = std::string("the GPU's counters could not be read: ") + e.what();
            }
        });
        if (why) *why = why_;
        return why_.empty();
    }

    // Every read collects the full list, whatever `which` asks: one configuration, set once per enable, then Start,
    // the launch, Stop, decode and a fresh image, the sequence measured on an H100 (.probe: five reads in a row).
    // Setting a second configuration on the enabled profiler between reads failed there (CUPTI_ERROR_UNKNOWN when
    // the next image was initialized), and the full list costs a drawn sample a few passes more, not a patch more.
    SampleCounters read(const std::function<void()>& launch, CounterList) {
        GpuProfileLock counters_to_ourselves;  // let go after the guard below: its last release calls hand_back()
        std::lock_guard<std::mutex> guard(mutex_);
        SampleCounters out;
        const auto started = std::chrono::steady_clock::now();
        out.passes = list_.passes;
        try {
            enable();
            CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
            start.pRangeProfilerObject = object_;
            GPULAB_CUPTI(cuptiRangeProfilerStart(&start));
            std::string launch_error;
            out.launched = true;
            try {
                launch();
                GPULAB_CUDA_CHECK(cudaGetLastError());
                if (const CUresult r = synchronize_context(); r != CUDA_SUCCESS) {
                    GPULAB_CUDA_CHECK(cudaGetLastError());  // the kernel's error, in the runtime's words
                    throw std::runtime_error("the device reported driver error " + std::to_string(int(r)));
                }
            } catch (const std::exception& e) {
                launch_error = e.what();
            }
            CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
            stop.pRangeProfilerObject = object_;
            GPULAB_CUPTI(cuptiRangeProfilerStop(&stop));
            CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
            decode.pRangeProfilerObject = object_;
            GPULAB_CUPTI(cuptiRangeProfilerDecodeData(&decode));
            if (!launch_error.empty()) {
                out.error = "the launch failed while it was profiled: " + launch_error;
                out.launch_at_fault = true;
            } else if (decode.numOfRangeDropped > 0) {
                out.error = "the launch ran more than " + std::to_string(kMaxProfiledKernels) +
                            " kernels, more than the grader profiles in one launch (" +
                            std::to_string(decode.numOfRangeDropped) + " were left out)";
                out.launch_at_fault = true;
            } else if (!stop.isAllPassSubmitted) {
                out.error = "CUPTI did not finish the profile's passes";
            }
            if (out.error.empty()) evaluate(list_, out);
            initialize_counter_data(list_);  // a fresh image for the next Start: ranges accumulate otherwise
        } catch (const CuptiFailure& f) {
            out.error = machine_reason(f);
        }
        out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        return out;
    }

    void hand_back() {
        std::lock_guard<std::mutex> guard(mutex_);
        if (!object_) return;
        CUpti_RangeProfiler_Disable_Params disable{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        disable.pRangeProfilerObject = object_;
        cuptiRangeProfilerDisable(&disable);  // nothing to do about a failure here: the process ends soon after
        object_ = nullptr;
    }

private:
    void set_up() {
        const DeviceFacts& facts = device_facts();
        if (!facts.available) throw std::runtime_error("no CUDA GPU: " + facts.unavailable_reason);
        GPULAB_CUDA_CHECK(cudaFree(nullptr));  // the primary context exists from here on
        context_ = current_context();
        load_perfworks_beside_cupti();
        CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        GPULAB_CUPTI(cuptiProfilerInitialize(&init));
        int device = 0;
        GPULAB_CUDA_CHECK(cudaGetDevice(&device));
        CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
        chip.deviceIndex = std::size_t(device);
        GPULAB_CUPTI(cuptiDeviceGetChipName(&chip));
        chip_ = chip.pChipName;
        CUpti_Profiler_GetCounterAvailability_Params availability{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
        availability.ctx = context_;
        when_counters_free("cuptiProfilerGetCounterAvailability", [&] { return cuptiProfilerGetCounterAvailability(&availability); });
        availability_.resize(availability.counterAvailabilityImageSize);
        availability.pCounterAvailabilityImage = availability_.data();
        when_counters_free("cuptiProfilerGetCounterAvailability", [&] { return cuptiProfilerGetCounterAvailability(&availability); });
        const bool shared = shared_bytes_counted();
        configure(list_, counter_metrics(CounterList::full, shared));
    }

    void enable() {
        if (object_) return;
        CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
        enable.ctx = context_;
        when_counters_free("cuptiRangeProfilerEnable", [&] { return cuptiRangeProfilerEnable(&enable); });
        object_ = enable.pRangeProfilerObject;
        try {
            size_counter_data(list_);
            initialize_counter_data(list_);
            set_config(list_);
        } catch (...) {  // enabled but not configured: the next read starts again from Enable
            CUpti_RangeProfiler_Disable_Params disable{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
            disable.pRangeProfilerObject = object_;
            cuptiRangeProfilerDisable(&disable);
            object_ = nullptr;
            throw;
        }
    }


    CUpti_Profiler_Host_Object* host_with(const std::vector<const char*>& metrics) {
        CUpti_Profiler_Host_Initialize_Params init{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
        init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        init.pChipName = chip_.c_str();
        init.pCounterAvailabilityImage = availability_.data();
        GPULAB_CUPTI(cuptiProfilerHostInitialize(&init));
        CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
        add.pHostObject = init.pHostObject;
        add.ppMetricNames = const_cast<const char**>(metrics.data());
        add.numMetrics = metrics.size();
        const CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add);
        if (r != CUPTI_SUCCESS) {
            release(init.pHostObject);
            return nullptr;
        }
        return init.pHostObject;
    }

    static void release(CUpti_Profiler_Host_Object* host) {
        CUpti_Profiler_Host_Deinitialize_Params done{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        done.pHostObject = host;
        cuptiProfilerHostDeinitialize(&done);
    }

    // The list's host object and configuration image. Where CUPTI refuses the whole list, each metric is tried alone
    // and the refused ones are left out (named on stderr): the report shows "-" for a figure it lacks.
    void configure(ListConfig& list, std::vector<std::string> names) {
        list.names = std::move(names);
        auto pointers = [&list] {
            list.pointers.clear();
            for (const std::string& n : list.names) list.pointers.push_back(n.c_str());
        };
        pointers();
        list.host = host_with(list.pointers);
        if (!list.host) {
            std::vector<std::string> kept;
            for (const std::string& n : list.names) {
                CUpti_Profiler_Host_Object* alone = host_with({n.c_str()});
                if (alone) kept.push_back(n), release(alone);
                else std::cerr << "[gpulab] CUPTI does not collect " << n << " on " << chip_ << ": left out\n";
            }
            list.names = kept;
            pointers();
            list.host = host_with(list.pointers);
            if (!list.host) throw std::runtime_error("CUPTI refused the metric list on " + chip_);
        }
        CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
        size.pHostObject = list.host;
        GPULAB_CUPTI(cuptiProfilerHostGetConfigImageSize(&size));
        list.config.resize(size.configImageSize);
        CUpti_Profiler_Host_GetConfigImage_Params image{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
        image.pHostObject = list.host;
        image.configImageSize = list.config.size();
        image.pConfigImage = list.config.data();
        GPULAB_CUPTI(cuptiProfilerHostGetConfigImage(&image));
        CUpti_Profiler_Host_GetNumOfPasses_Params passes{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
        passes.configImageSize = list.config.size();
        passes.pConfigImage = list.config.data();
        GPULAB_CUPTI(cuptiProfilerHostGetNumOfPasses(&passes));
        list.passes = int(passes.numOfPasses);
    }

    void size_counter_data(ListConfig& list) {
        CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
        size.pRangeProfilerObject = object_;
        size.pMetricNames = list.pointers.data();
        size.numMetrics = list.pointers.size();
        size.maxNumOfRanges = kMaxProfiledKernels;
        size.maxNumRangeTreeNodes = kMaxProfiledKernels;
        GPULAB_CUPTI(cuptiRangeProfilerGetCounterDataSize(&size));
        list.counter_data.assign(size.counterDataSize, 0);
    }

    // A fresh image before every read: ranges would accumulate from one read to the next otherwise.
    void initialize_counter_data(ListConfig& list) {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
        init.pRangeProfilerObject = object_;
        init.counterDataSize = list.counter_data.size();
        init.pCounterData = list.counter_data.data();
        GPULAB_CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&init));
    }

    void set_config(ListConfig& list) {
        CUpti_RangeProfiler_SetConfig_Params set{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
        set.pRangeProfilerObject = object_;
        set.configSize = list.config.size();
        set.pConfig = list.config.data();
        set.counterDataImageSize = list.counter_data.size();
        set.pCounterDataImage = list.counter_data.data();
        set.range = CUPTI_AutoRange;
        set.replayMode = CUPTI_KernelReplay;
        set.maxRangesPerPass = kMaxProfiledKernels;
        set.numNestingLevels = 1;
        set.minNestingLevel = 1;
        set.passIndex = 0;
        set.targetNestingLevel = 1;
        GPULAB_CUPTI(cuptiRangeProfilerSetConfig(&set));
    }

    void evaluate(ListConfig& list, SampleCounters& out) {
        CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
        info.pCounterDataImage = list.counter_data.data();
        info.counterDataImageSize = list.counter_data.size();
        GPULAB_CUPTI(cuptiRangeProfilerGetCounterDataInfo(&info));
        std::vector<double> values(list.pointers.size());
        for (std::size_t r = 0; r < info.numTotalRanges; ++r) {
            CUpti_Profiler_Host_EvaluateToGpuValues_Params eval{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
            eval.pHostObject = list.host;
            eval.pCounterDataImage = list.counter_data.data();
            eval.counterDataImageSize = list.counter_data.size();
            eval.rangeIndex = r;
            eval.ppMetricNames = list.pointers.data();
            eval.numMetrics = list.pointers.size();
            eval.pMetricValues = values.data();
            GPULAB_CUPTI(cuptiProfilerHostEvaluateToGpuValues(&eval));
            ProfiledKernel k;
            for (std::size_t m = 0; m < list.names.size(); ++m) k.metrics[list.names[m]] = values[m];
            out.kernels.push_back(std::move(k));
        }
    }

    std::once_flag once_;
    std::string why_;
    std::mutex mutex_;
    CUcontext context_ = nullptr;
    std::string chip_;
    std::vector<std::uint8_t> availability_;
    ListConfig list_;  // the full list (read)
    CUpti_RangeProfiler_Object* object_ = nullptr;
};

// CUPTI loads the PerfWorks libraries (libnvperf_host, libnvperf_target) by name when profiling starts, which finds
// them only where the loader's path has the toolkit's library folder. Loading them first from the folder libcupti was
// loaded from makes the later load by name find them whatever LD_LIBRARY_PATH says.
void load_perfworks_beside_cupti() {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&cuptiGetResultString), &info) || !info.dli_fname) return;
    const std::string cupti = info.dli_fname;
    const std::string dir = cupti.substr(0, cupti.rfind('/') + 1);
    for (const char* name : {"libnvperf_host.so", "libnvperf_target.so"}) dlopen((dir + name).c_str(), RTLD_NOW | RTLD_GLOBAL);
}

Session& session() {
    static Session* s = new Session;  // never destroyed: CUPTI must not be torn down after the context
    return *s;
}

}  // namespace

std::string cupti_text(CUptiResult r) {
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    return (text ? std::string(text) : "CUPTI error") + " (" + std::to_string(int(r)) + ")";
}

// The driver's current context, through the runtime's entry points (the grader does not link the driver: a machine
// without one starts GPU graders too, to list their tests).
CUcontext current_context() {
    using GetCurrent = CUresult (*)(CUcontext*);
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    GPULAB_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &entry, 12000, cudaEnableDefault, &found));
    CUcontext ctx = nullptr;
    if (found != cudaDriverEntryPointSuccess || !entry || reinterpret_cast<GetCurrent>(entry)(&ctx) != CUDA_SUCCESS || !ctx)
        throw std::runtime_error("no current CUDA context");
    return ctx;
}

// cuCtxSynchronize, through the runtime's entry points like current_context.
CUresult synchronize_context() {
    using Synchronize = CUresult (*)();
    static Synchronize synchronize = [] {
        void* entry = nullptr;
        cudaDriverEntryPointQueryResult found{};
        GPULAB_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuCtxSynchronize", &entry, 12000, cudaEnableDefault, &found));
        if (found != cudaDriverEntryPointSuccess || !entry) throw std::runtime_error("no cuCtxSynchronize in this driver");
        return reinterpret_cast<Synchronize>(entry);
    }();
    return synchronize();
}

bool counters_readable(std::string* why) { return session().ready(why); }

SampleCounters read_counters(const std::function<void()>& launch, CounterList list) {
    std::string why;
    if (!session().ready(&why)) {
        SampleCounters out;
        out.error = why;
        return out;
    }
    return session().read(launch, list);
}

void release_counters() {
    if (device_facts().available) session().hand_back();
}

}  // namespace gpulab
