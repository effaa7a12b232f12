#include "gpulab/launch_recorder.h"

#include "gpulab/demangle.h"

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

std::string launches_in_words(const std::vector<RecordedLaunch>& launches,
                              const std::function<std::string(const RecordedLaunch&)>& text) {
    if (launches.empty()) return "no kernel";
    std::string words;
    for (std::size_t i = 0; i < launches.size() && i < 3; ++i) words += (i ? "; " : "") + text(launches[i]);
    if (launches.size() > 3) words += "; and " + std::to_string(launches.size() - 3) + " more";
    return words;
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

namespace {
std::string variable_at(const void* symbol) {
    std::ostringstream out;
    out << "the variable at " << symbol;
    return out.str();
}
}  // namespace

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
    launch.site_file = r.file;
    launch.site_line = r.line;
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
// CPU execution mode's launch records carry no arguments (timing, which compares them, needs a GPU).
void gpulab::classify_arguments(std::vector<RecordedLaunch>&) {}
std::string gpulab::symbol_name_of(const void* symbol) { return variable_at(symbol); }

#else

#include "gpulab/launch_geometry.h"

#include <cuda.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

namespace {

using LaunchFn = cudaError_t (*)(const void*, dim3, dim3, void**, size_t, cudaStream_t);
using HandleLaunchFn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);

LaunchFn real_launch() {
    static const auto real = reinterpret_cast<LaunchFn>(dlsym(RTLD_NEXT, "cudaLaunchKernel"));
    return real;
}

using PushConfigurationFn = unsigned (*)(dim3, dim3, size_t, struct CUstream_st*);

PushConfigurationFn real_push_configuration() {
    static const auto real = reinterpret_cast<PushConfigurationFn>(dlsym(RTLD_NEXT, "__cudaPushCallConfiguration"));
    return real;
}

// Where this thread's last <<<...>>> pushed its configuration from: an address in the student's launch function, on
// the launch's line (the kernel's stub, which makes the launch itself, is the compiler's and carries the kernel's
// line instead). Taken by the launch that follows.
thread_local std::uintptr_t t_pushed_from = 0;

HandleLaunchFn real_handle_launch() {
    static const auto real = reinterpret_cast<HandleLaunchFn>(dlsym(RTLD_NEXT, "__cudaLaunchKernel"));
    return real;
}

// The driver's answer to "where is parameter i and how large": cuKernelGetParamInfo for a kernel handle (what
// nvcc 13's <<<...>>> passes), cuFuncGetParamInfo for a function (cudaGetFuncBySymbol of an entry point). Both
// from CUDA 12.4 on, asked through the runtime's driver entry points: the grader does not link libcuda itself.
using ParamInfoFn = CUresult (*)(void* kernel_or_function, size_t index, size_t* offset, size_t* size);

ParamInfoFn driver_param_info(const char* name) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12040, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    return reinterpret_cast<ParamInfoFn>(fn);
}

// Each parameter's size, in order; nullopt where the driver cannot tell (a driver older than CUDA 12.4).
std::optional<std::vector<size_t>> ask_parameter_sizes(const void* kernel, bool is_handle) {
    static const ParamInfoFn kernel_info = driver_param_info("cuKernelGetParamInfo");
    static const ParamInfoFn function_info = driver_param_info("cuFuncGetParamInfo");
    void* queried = const_cast<void*>(kernel);
    ParamInfoFn info = kernel_info;
    if (!is_handle) {
        cudaFunction_t function = nullptr;
        if (cudaGetFuncBySymbol(&function, kernel) != cudaSuccess) {
            cudaGetLastError();
            return std::nullopt;
        }
        queried = function;
        info = function_info;
    }
    if (!info) return std::nullopt;
    std::vector<size_t> sizes;
    // Asked until the driver says there is no such parameter (CUDA_ERROR_INVALID_VALUE); a kernel takes at most
    // 32764 bytes of parameters, so at most that many.
    for (size_t i = 0; i < 32764; ++i) {
        size_t offset = 0, size = 0;
        if (info(queried, i, &offset, &size) != CUDA_SUCCESS) break;
        sizes.push_back(size);
    }
    return sizes;
}

// A kernel's parameters never change: asked once per kernel. Guarded by g_mutex.
const std::optional<std::vector<size_t>>& parameter_sizes(const void* kernel, bool is_handle) {
    static std::map<const void*, std::optional<std::vector<size_t>>> known;
    auto found = known.find(kernel);
    if (found == known.end()) found = known.emplace(kernel, ask_parameter_sizes(kernel, is_handle)).first;
    return found->second;
}

// The arguments' bytes only: whether a value is a device address is asked after the launch (classify_arguments).
void record_arguments(gpulab::RecordedLaunch& launch, bool is_handle, void** args) {
    const auto& sizes = parameter_sizes(launch.kernel, is_handle);
    if (!sizes || (!args && !sizes->empty())) return;
    launch.arguments.resize(sizes->size());
    for (size_t i = 0; i < sizes->size(); ++i) {
        const auto* bytes = static_cast<const unsigned char*>(args[i]);
        launch.arguments[i].bytes.assign(bytes, bytes + (*sizes)[i]);
    }
    launch.arguments_known = true;
}

void record(const void* kernel, bool is_handle, dim3 grid, dim3 block, size_t shared, void** args) {
    std::lock_guard<std::mutex> lock(gpulab::g_mutex);
    if (!gpulab::g_active) return;
    gpulab::RecordedLaunch launch;
    launch.kernel = kernel;
    launch.grid = grid;
    launch.block = block;
    launch.dynamic_shared_bytes = shared;
    launch.site_address = t_pushed_from;
    t_pushed_from = 0;
    record_arguments(launch, is_handle, args);
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

void record_call(const char* name, std::string detail) {
    std::lock_guard<std::mutex> lock(gpulab::g_mutex);
    if (!gpulab::g_active) return;
    gpulab::RecordedCall call{name, std::move(detail)};
    call.launches_before = gpulab::g_active->launches.size();
    gpulab::g_active->calls.push_back(std::move(call));
}

// FNV-1a, 64 bits: enough to tell two values apart, cheap enough for a copy inside a timed launch.
std::uint64_t fnv1a(const unsigned char* bytes, size_t count) {
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < count; ++i) hash = (hash ^ bytes[i]) * 0x100000001b3ull;
    return hash;
}

// A copy to a __constant__ or __device__ variable: recorded with the variable, the offset and what it carried.
// The source is read only where it is host memory (a device address would fault on the host); a copy from
// anywhere else stays unread, and the audit treats it as a value it cannot vouch for.
void record_symbol_copy(const char* name, const void* symbol, const void* src, size_t count, size_t offset,
                        cudaMemcpyKind kind) {
    {
        std::lock_guard<std::mutex> lock(gpulab::g_mutex);
        if (!gpulab::g_active) return;
    }
    gpulab::RecordedCall call{name, copy_detail(count, kind)};
    call.symbol = symbol;
    call.offset = offset;
    call.bytes = count;
    cudaPointerAttributes where{};
    const bool known = cudaPointerGetAttributes(&where, src) == cudaSuccess;
    if (!known) cudaGetLastError();
    if (src && known && (where.type == cudaMemoryTypeUnregistered || where.type == cudaMemoryTypeHost) &&
        (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDefault)) {
        const auto* bytes = static_cast<const unsigned char*>(src);
        call.source_read = true;
        call.digest = fnv1a(bytes, count);
        static const char* const hex = "0123456789abcdef";
        for (size_t i = 0; i < count && i < 16; ++i) {
            if (i) call.preview += ' ';
            call.preview += hex[bytes[i] >> 4];
            call.preview += hex[bytes[i] & 15];
        }
    }
    std::lock_guard<std::mutex> lock(gpulab::g_mutex);
    if (!gpulab::g_active) return;
    call.launches_before = gpulab::g_active->launches.size();
    gpulab::g_active->calls.push_back(std::move(call));
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
        return demangle(name);
    }
    cudaGetLastError();
    std::ostringstream out;
    out << "kernel at " << kernel;
    return out.str();
}

// The interposed entry points watch every launch already.
void gpulab::start_watching_launches() {}
void gpulab::stop_watching_launches() {}

void gpulab::classify_arguments(std::vector<RecordedLaunch>& launches) {
    for (RecordedLaunch& launch : launches)
        for (RecordedArgument& argument : launch.arguments) {
            if (argument.kind != RecordedArgument::Kind::unclassified) continue;
            argument.kind = RecordedArgument::Kind::value;
            if (argument.bytes.size() != sizeof(void*)) continue;
            void* value = nullptr;
            std::memcpy(&value, argument.bytes.data(), sizeof value);
            cudaPointerAttributes where{};
            if (cudaPointerGetAttributes(&where, value) != cudaSuccess) {
                cudaGetLastError();
                continue;
            }
            if (where.type == cudaMemoryTypeDevice || where.type == cudaMemoryTypeManaged)
                argument.kind = RecordedArgument::Kind::device_pointer;
        }
}

namespace {

// The name each __device__ and __constant__ variable was registered under, by the address of its host-side shadow
// (what cudaMemcpyToSymbol is given). nvcc gives shadows internal linkage, so no symbol table names them; the
// registration every module makes when it is loaded does (__cudaRegisterVar, below).
std::mutex g_variables_mutex;
std::map<const void*, std::string>& variable_names() {  // guarded by g_variables_mutex
    static std::map<const void*, std::string> names;
    return names;
}

std::string readable_symbol(const char* name) { return gpulab::demangle(name); }

}  // namespace

std::string gpulab::symbol_name_of(const void* symbol) {
    {
        std::lock_guard<std::mutex> lock(g_variables_mutex);
        const auto found = variable_names().find(symbol);
        if (found != variable_names().end()) return found->second;
    }
    Dl_info info{};
    if (dladdr(symbol, &info) != 0 && info.dli_sname && info.dli_saddr == symbol) return readable_symbol(info.dli_sname);
    return variable_at(symbol);
}

// Every module's __device__ and __constant__ variables are registered through here when it is loaded (the grader's
// own and each solution library's, whose calls resolve to the grader executable first): the name is kept for
// messages, and the registration forwarded unchanged.
extern "C" void __cudaRegisterVar(void** module, char* host_variable, char* device_address, const char* device_name,
                                  int ext, size_t size, int constant, int global) {
    using Fn = void (*)(void**, char*, char*, const char*, int, size_t, int, int);
    static const auto real = next_symbol<Fn>("__cudaRegisterVar");
    if (host_variable && device_name) {
        std::lock_guard<std::mutex> lock(g_variables_mutex);
        variable_names()[host_variable] = readable_symbol(device_name);
    }
    if (real) real(module, host_variable, device_address, device_name, ext, size, constant, global);
}

// Interposes on the CUDA runtime's launch entry points: the grader executable exports these symbols,
// so the solution libraries' launches resolve here first. nvcc 13's <<<...>>> calls
// __cudaLaunchKernel with a kernel handle (cudaFuncGetAttributes accepts one); explicit launches
// and older code call cudaLaunchKernel.
// Every <<<...>>> pushes its configuration first, from the launch's own line: only the address is kept (no lock, no
// lookup), so that watching a timed launch adds next to nothing to its time.
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, struct CUstream_st* stream) {
    t_pushed_from = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
    const auto real = real_push_configuration();
    return real ? real(grid, block, shared, stream) : 1;
}

extern "C" cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared,
                                          cudaStream_t stream) {
    const auto real = real_handle_launch();
    if (!real) return cudaErrorNotSupported;
    record(reinterpret_cast<const void*>(kernel), true, grid, block, shared, args);
    if (g_gpu_dry_run) return cudaSuccess;  // launch_geometry.h: recorded, not launched
    return remember_rejection(real(kernel, grid, block, args, shared, stream), grid, block);
}

extern "C" cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                                        cudaStream_t stream) {
    const auto real = real_launch();
    if (!real) return cudaErrorNotSupported;
    record(func, false, grid, block, shared, args);
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
// Copies to a symbol carry their bytes into the record (record_symbol_copy), before the copy runs.
#define GPULAB_FORWARD_TO_SYMBOL(name, signature, args)                   \
    extern "C" cudaError_t name signature {                               \
        using Fn = cudaError_t(*) signature;                              \
        static const auto real = next_symbol<Fn>(#name);                  \
        if (!real) return cudaErrorNotSupported;                          \
        record_symbol_copy(#name, symbol, src, count, offset, kind);      \
        return real args;                                                 \
    }

GPULAB_FORWARD_TO_SYMBOL(cudaMemcpyToSymbol,
                         (const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind),
                         (symbol, src, count, offset, kind))
GPULAB_FORWARD_TO_SYMBOL(cudaMemcpyToSymbolAsync,
                         (const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind,
                          cudaStream_t stream),
                         (symbol, src, count, offset, kind, stream))
#undef GPULAB_FORWARD_TO_SYMBOL
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
