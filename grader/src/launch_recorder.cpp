#include "gpulab/launch_recorder.h"

#include <mutex>
#include <utility>
#include <sstream>
#include <stdexcept>

namespace gpulab {
namespace {

std::mutex g_mutex;
struct Recording {
    std::vector<RecordedLaunch> launches;
    std::vector<RecordedCall> calls;
};
Recording* g_active = nullptr;

}  // namespace

std::string RecordedLaunch::describe() const {
    std::ostringstream out;
    out << "grid " << grid.x << "x" << grid.y << "x" << grid.z << ", block " << block.x << "x" << block.y << "x"
        << block.z << ", " << shared_bytes() << " B shared";
    if (registers) out << ", " << registers << " regs";  // 0: unknown (CPU execution mode)
    if (local_bytes) out << ", " << local_bytes << " B local";
    return out.str();
}

LaunchRecorder::LaunchRecorder() {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_active) throw std::logic_error("only one LaunchRecorder at a time");
    g_active = new Recording;
    start_watching_launches();
}

LaunchRecorder::~LaunchRecorder() {
    stop_watching_launches();
    std::lock_guard<std::mutex> lock(g_mutex);
    delete g_active;
    g_active = nullptr;
}

const std::vector<RecordedLaunch>& LaunchRecorder::launches() const { return g_active->launches; }
const std::vector<RecordedCall>& LaunchRecorder::calls() const { return g_active->calls; }

std::string invalid_configuration(dim3 grid, dim3 block) {
    std::ostringstream out;
    const auto dims = [](dim3 d) {
        return std::to_string(d.x) + " x " + std::to_string(d.y) + " x " + std::to_string(d.z);
    };
    const unsigned long long threads = 1ull * block.x * block.y * block.z;
    if (block.x == 0 || block.y == 0 || block.z == 0 || grid.x == 0 || grid.y == 0 || grid.z == 0)
        out << "a dimension is 0 (grid " << dims(grid) << ", block " << dims(block)
            << "): was a block count rounded down to nothing?";
    else if (threads > 1024)
        out << "block " << dims(block) << " = " << threads << " threads per block > 1024";
    else if (block.z > 64)
        out << "block.z = " << block.z << " > 64";
    else if (grid.y > 65535 || grid.z > 65535)
        out << "grid " << dims(grid) << ": grid.y and grid.z may be at most 65535";
    else
        return "";
    return "invalid configuration: " + out.str();
}

namespace {
std::string g_rejected;  // guarded by g_mutex
}  // namespace

std::string take_rejected_launch() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return std::exchange(g_rejected, std::string());
}

}  // namespace gpulab

#ifdef GPULAB_CPU_MODE

// CPU execution mode runs launches itself and reports each to an observer: the configuration and the static
// shared memory a block used; registers and local memory stay 0 (unknown without a GPU build).
#include <gpulab_cpu/launch_observer.h>

#include <map>

namespace {

std::map<const void*, std::string>& kernel_names() {  // guarded by g_mutex
    static std::map<const void*, std::string> names;
    return names;
}

void observe(const gpulab::cpu::LaunchRecord& r) {
    std::lock_guard<std::mutex> lock(gpulab::g_mutex);
    if (r.name && *r.name) kernel_names().emplace(r.kernel, r.name);
    if (!gpulab::g_active) return;
    gpulab::RecordedLaunch launch;
    launch.kernel = r.kernel;
    launch.grid = r.grid;
    launch.block = r.block;
    launch.dynamic_shared_bytes = r.dynamic_shared;
    launch.static_shared_bytes = r.static_shared;
    gpulab::g_active->launches.push_back(launch);
}

}  // namespace

bool gpulab::launch_recording_supported() { return true; }
// The kernel's name as its launch site spelled it (CPU execution mode knows no other: a solution's kernels are
// local symbols), learned from the launches watched so far; messages comparing two launches name their kernels.
std::string gpulab::kernel_name_of(const void* kernel) {
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        const auto found = kernel_names().find(kernel);
        if (found != kernel_names().end()) return found->second;
    }
    std::ostringstream out;
    out << "kernel at " << kernel;
    return out.str();
}
void gpulab::start_watching_launches() { gpulab::cpu::set_launch_observer(&observe); }
void gpulab::stop_watching_launches() { gpulab::cpu::set_launch_observer(nullptr); }

#else

#include "gpulab/launch_geometry.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>

#include <map>

namespace {

using LaunchFn = cudaError_t (*)(const void*, dim3, dim3, void**, size_t, cudaStream_t);
using HandleLaunchFn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);

LaunchFn real_launch() {
    static const auto real = reinterpret_cast<LaunchFn>(dlsym(RTLD_NEXT, "cudaLaunchKernel"));
    return real;
}

HandleLaunchFn real_handle_launch() {
    static const auto real = reinterpret_cast<HandleLaunchFn>(dlsym(RTLD_NEXT, "__cudaLaunchKernel"));
    return real;
}

void record(const void* kernel, dim3 grid, dim3 block, size_t shared) {
    std::lock_guard<std::mutex> lock(gpulab::g_mutex);
    if (!gpulab::g_active) return;
    gpulab::RecordedLaunch launch;
    launch.kernel = kernel;
    launch.grid = grid;
    launch.block = block;
    launch.dynamic_shared_bytes = shared;
    // A kernel's compiled attributes never change: asked once, so that watching a timed launch adds next
    // to nothing to its time.
    static std::map<const void*, cudaFuncAttributes> known;
    auto found = known.find(kernel);
    if (found == known.end()) {
        cudaFuncAttributes attributes{};
        if (cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess) found = known.emplace(kernel, attributes).first;
        else cudaGetLastError();
    }
    if (found != known.end()) {
        launch.static_shared_bytes = found->second.sharedSizeBytes;
        launch.local_bytes = found->second.localSizeBytes;
        launch.registers = found->second.numRegs;
    }
    gpulab::g_active->launches.push_back(launch);
}

void record_call(const char* name, std::string detail) {
    std::lock_guard<std::mutex> lock(gpulab::g_mutex);
    if (gpulab::g_active) gpulab::g_active->calls.push_back({name, std::move(detail)});
}

const char* direction(cudaMemcpyKind kind) {
    switch (kind) {
        case cudaMemcpyHostToHost: return "host to host";
        case cudaMemcpyHostToDevice: return "host to device";
        case cudaMemcpyDeviceToHost: return "device to host";
        case cudaMemcpyDeviceToDevice: return "device to device";
        default: return "direction inferred";
    }
}

std::string copy_detail(size_t bytes, cudaMemcpyKind kind) {
    return std::to_string(bytes) + " B, " + direction(kind);
}

template <typename Fn>
Fn next_symbol(const char* name) {
    return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

// A rejected configuration is remembered in words, for check_student_launch's message.
cudaError_t remember_rejection(cudaError_t status, dim3 grid, dim3 block) {
    // The runtime answers a block of over 1024 threads with cudaErrorInvalidConfiguration or, depending on
    // the dimension that breaks a limit, cudaErrorInvalidValue.
    if (status == cudaErrorInvalidConfiguration ||
        (status == cudaErrorInvalidValue && !gpulab::invalid_configuration(grid, block).empty())) {
        std::lock_guard<std::mutex> lock(gpulab::g_mutex);
        gpulab::g_rejected = gpulab::invalid_configuration(grid, block);
    }
    return status;
}

}  // namespace

bool gpulab::launch_recording_supported() { return real_launch() && real_handle_launch(); }

namespace {
std::atomic<bool> g_gpu_dry_run{false};
}
void gpulab::set_gpu_dry_run(bool on) { g_gpu_dry_run = on; }

std::string gpulab::kernel_name_of(const void* kernel) {
    const char* name = nullptr;
    if (cudaFuncGetName(&name, kernel) == cudaSuccess && name) {
        // "heat_rod::ftcs_interior(float const*, float*, int, float)", not "_ZN8heat_rod13ftcs_interiorEPKfPfif".
        int status = -1;
        char* readable = abi::__cxa_demangle(name, nullptr, nullptr, &status);
        const std::string text = status == 0 && readable ? readable : name;
        std::free(readable);
        return text;
    }
    cudaGetLastError();
    std::ostringstream out;
    out << "kernel at " << kernel;
    return out.str();
}

// The interposed entry points watch every launch already.
void gpulab::start_watching_launches() {}
void gpulab::stop_watching_launches() {}

// Interposes on the CUDA runtime's launch entry points: the grader executable exports these symbols,
// so the solution libraries' launches resolve here first. nvcc 13's <<<...>>> calls
// __cudaLaunchKernel with a kernel handle (cudaFuncGetAttributes accepts one); explicit launches
// and older code call cudaLaunchKernel.
extern "C" cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared,
                                          cudaStream_t stream) {
    const auto real = real_handle_launch();
    if (!real) return cudaErrorNotSupported;
    record(reinterpret_cast<const void*>(kernel), grid, block, shared);
    if (g_gpu_dry_run) return cudaSuccess;  // launch_geometry.h: recorded, not launched
    return remember_rejection(real(kernel, grid, block, args, shared, stream), grid, block);
}

extern "C" cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                                        cudaStream_t stream) {
    const auto real = real_launch();
    if (!real) return cudaErrorNotSupported;
    record(func, grid, block, shared);
    if (g_gpu_dry_run) return cudaSuccess;
    return remember_rejection(real(func, grid, block, args, shared, stream), grid, block);
}

// The runtime calls a launch function that computes elsewhere needs: copies, waits, allocations. Each is
// recorded while a LaunchRecorder is alive, then forwarded unchanged. The grader's own calls come through
// here too; it records none of them, since no recorder watches its own code.
#define GPULAB_FORWARD(name, signature, args, detail)                                           \
    extern "C" cudaError_t name signature {                                                     \
        using Fn = cudaError_t(*) signature;                                                    \
        static const auto real = next_symbol<Fn>(#name);                                        \
        if (!real) return cudaErrorNotSupported;                                                \
        record_call(#name, detail);                                                             \
        return real args;                                                                       \
    }

GPULAB_FORWARD(cudaMemcpy, (void* dst, const void* src, size_t count, cudaMemcpyKind kind), (dst, src, count, kind),
               copy_detail(count, kind))
GPULAB_FORWARD(cudaMemcpyAsync, (void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream),
               (dst, src, count, kind, stream), copy_detail(count, kind))
GPULAB_FORWARD(cudaMemcpy2D,
               (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind),
               (dst, dpitch, src, spitch, width, height, kind), copy_detail(width * height, kind))
GPULAB_FORWARD(cudaMemcpy2DAsync,
               (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                cudaMemcpyKind kind, cudaStream_t stream),
               (dst, dpitch, src, spitch, width, height, kind, stream), copy_detail(width * height, kind))
GPULAB_FORWARD(cudaMemcpy3D, (const cudaMemcpy3DParms* p), (p), std::string())
GPULAB_FORWARD(cudaMemcpy3DAsync, (const cudaMemcpy3DParms* p, cudaStream_t stream), (p, stream), std::string())
GPULAB_FORWARD(cudaMemcpyPeer, (void* dst, int dst_device, const void* src, int src_device, size_t count),
               (dst, dst_device, src, src_device, count), std::to_string(count) + " B")
GPULAB_FORWARD(cudaMemcpyPeerAsync,
               (void* dst, int dst_device, const void* src, int src_device, size_t count, cudaStream_t stream),
               (dst, dst_device, src, src_device, count, stream), std::to_string(count) + " B")
GPULAB_FORWARD(cudaMemcpyToSymbol,
               (const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind),
               (symbol, src, count, offset, kind), copy_detail(count, kind))
GPULAB_FORWARD(cudaMemcpyToSymbolAsync,
               (const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind,
                cudaStream_t stream),
               (symbol, src, count, offset, kind, stream), copy_detail(count, kind))
GPULAB_FORWARD(cudaMemcpyFromSymbol,
               (void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind),
               (dst, symbol, count, offset, kind), copy_detail(count, kind))
GPULAB_FORWARD(cudaMemcpyFromSymbolAsync,
               (void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind, cudaStream_t stream),
               (dst, symbol, count, offset, kind, stream), copy_detail(count, kind))
GPULAB_FORWARD(cudaDeviceSynchronize, (void), (), std::string())
GPULAB_FORWARD(cudaStreamSynchronize, (cudaStream_t stream), (stream), std::string())
GPULAB_FORWARD(cudaEventSynchronize, (cudaEvent_t event), (event), std::string())
GPULAB_FORWARD(cudaMalloc, (void** p, size_t size), (p, size), std::to_string(size) + " B")
GPULAB_FORWARD(cudaMallocManaged, (void** p, size_t size, unsigned flags), (p, size, flags), std::to_string(size) + " B")
GPULAB_FORWARD(cudaMallocHost, (void** p, size_t size), (p, size), std::to_string(size) + " B")
GPULAB_FORWARD(cudaHostAlloc, (void** p, size_t size, unsigned flags), (p, size, flags), std::to_string(size) + " B")
GPULAB_FORWARD(cudaHostRegister, (void* p, size_t size, unsigned flags), (p, size, flags), std::to_string(size) + " B")

#undef GPULAB_FORWARD

#endif
