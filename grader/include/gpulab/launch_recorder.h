// Watches the kernel launches student code makes, without the student's help.
//
// The grader executable defines cudaLaunchKernel itself (every <<<...>>> launch goes through it) and
// forwards to the CUDA runtime's. While a LaunchRecorder is alive, each launch is recorded with its
// configuration and the kernel's compiled attributes, so a test can check the technique itself
// ("the tiled kernel has a shared-memory tile") instead of inferring it from speed.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace gpulab {

struct RecordedLaunch {
    const void* kernel = nullptr;
    dim3 grid, block;
    std::size_t dynamic_shared_bytes = 0;
    // From cudaFuncGetAttributes; zero if it failed.
    std::size_t static_shared_bytes = 0;
    std::size_t local_bytes = 0;  // per-thread local memory: register spills and local arrays
    int registers = 0;
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

// The kernel's name as the compiler knows it ("matmul_tiled"), where the runtime can tell; else its address.
std::string kernel_name_of(const void* kernel);

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
