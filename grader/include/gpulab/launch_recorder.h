// Watches the kernel launches student code makes, without the student's help.
//
// The grader executable defines cudaLaunchKernel itself (every <<<...>>> launch goes through it) and
// forwards to the CUDA runtime's; it defines __cudaPushCallConfiguration too, which every <<<...>>> calls from its
// own line first, and keeps the address it was called from (the launch's line: source_lines.h). While a
// LaunchRecorder is alive, each launch is recorded with its
// configuration and the kernel's compiled attributes, so a test can check the technique itself
// ("the tiled kernel has a shared-memory tile") instead of inferring it from speed.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpulab {

// One argument of a recorded launch as the kernel received it: as many bytes as the compiled kernel declares for
// that parameter (cuFuncGetParamInfo). Whether the value is an address in device memory is asked after the launch
// (classify_arguments), so that watching a timed launch adds no driver query to its time.
struct RecordedArgument {
    enum class Kind { unclassified, value, device_pointer };
    std::vector<unsigned char> bytes;
    Kind kind = Kind::unclassified;
};

struct RecordedLaunch {
    const void* kernel = nullptr;
    dim3 grid, block;
    std::size_t dynamic_shared_bytes = 0;
    // From cudaFuncGetAttributes; zero if it failed.
    std::size_t static_shared_bytes = 0;
    std::size_t local_bytes = 0;  // per-thread local memory: register spills and local arrays
    int registers = 0;
    // The kernel's arguments, on a GPU where the driver tells each parameter's size (CUDA 12.4 and later).
    // CPU execution mode records none: it runs no timing, which is what compares them.
    std::vector<RecordedArgument> arguments;
    bool arguments_known = false;
    // Where the student's code launched it: in CPU execution mode the .cu file and line of its <<<...>>> (the
    // rewriter's __FILE__ and __LINE__); on a GPU the address the launch configuration was pushed from, whose line
    // the GPU build's host line table gives (launch_line_of, source_lines.h).
    const char* site_file = nullptr;
    int site_line = 0;
    std::uintptr_t site_address = 0;
    std::size_t shared_bytes() const { return static_shared_bytes + dynamic_shared_bytes; }
    std::string describe() const;  // "grid 4096x1x1, block 256x1x1, 0 B shared, 16 regs" (regs where known)
};

// A CUDA runtime call other than a launch that moves data, waits for the device or allocates: what a
// launch function that computes elsewhere (on the host, from a remembered answer) cannot do without.
// Recorded on a GPU only (the grader interposes on these entry points; CPU execution mode runs no timing).
struct RecordedCall {
    std::string name;    // "cudaMemcpy"
    std::string detail;  // "67108864 B, device to host"
    std::string describe() const { return name + (detail.empty() ? "" : " (" + detail + ")"); }
    // How many kernels the same recording had launched before this call: where it fell among them.
    std::size_t launches_before = 0;
    // A copy to a __constant__ or __device__ variable (cudaMemcpyToSymbol, ...Async): which variable, where in it,
    // and what it carried, so that a timed launch can be held to the values the checked launch copied (a mode
    // flag set from the host between calls is a copy like any other).
    const void* symbol = nullptr;
    std::size_t offset = 0, bytes = 0;
    bool source_read = false;  // false: the source was not host memory, so its bytes are unknown
    std::uint64_t digest = 0;  // FNV-1a of the bytes copied, where read
    std::string preview;       // their first 16, in hex ("01 00 00 00"), for messages
};

class LaunchRecorder {
public:
    LaunchRecorder();
    ~LaunchRecorder();
    LaunchRecorder(const LaunchRecorder&) = delete;
    LaunchRecorder& operator=(const LaunchRecorder&) = delete;
    const std::vector<RecordedLaunch>& launches() const;
    const std::vector<RecordedCall>& calls() const;
};

// Up to three launches, each in the words of `text`, then how many more: "a; b; c; and 2 more" ("no kernel" for none).
std::string launches_in_words(const std::vector<RecordedLaunch>& launches,
                              const std::function<std::string(const RecordedLaunch&)>& text);

// The kernel's name as the compiler knows it ("matmul_tiled"), where the runtime can tell; else its address.
std::string kernel_name_of(const void* kernel);

// Asks, for every argument not yet classified, whether its value is an address in device (or managed) memory:
// cudaPointerGetAttributes, on a GPU. Call it while the buffers the launch was given are still allocated. CPU
// execution mode records no arguments, and leaves any given to it as they are.
void classify_arguments(std::vector<RecordedLaunch>& launches);

// The __constant__ or __device__ variable a symbol copy wrote ("heat_2d::g_mode"), where the grader can tell
// (an exported symbol of the solution's library); else "the variable at 0x...".
std::string symbol_name_of(const void* symbol);

// True where launches can be recorded: on a GPU (configuration and the compiled kernel's attributes) and in
// CPU execution mode (configuration and the static shared memory a block used; registers and local
// memory are 0 there, unknown without a GPU build).
bool launch_recording_supported();

// Used by LaunchRecorder: CPU execution mode reports launches only while someone watches.
void start_watching_launches();
void stop_watching_launches();

// What was wrong with the last launch the CUDA runtime rejected as an invalid configuration, e.g.
// "invalid configuration: block 32 x 32 x 32 = 32768 threads per block > 1024", and forgets it;
// "" when there was none. Recorded whether or not a LaunchRecorder is alive (GPU grader only; CPU
// execution mode words its own reason).
std::string take_rejected_launch();

// The rule a grid and block break, in those words; "" when they break none of the CUDA limits every
// current GPU shares (1024 threads a block, block.z <= 64, grid.y and grid.z <= 65535, nothing 0).
std::string invalid_configuration(dim3 grid, dim3 block);

}  // namespace gpulab
