// What the compiler gave each kernel of a solution's GPU build: registers per thread, local memory per thread
// (register spills and arrays indexed at run time) and static shared memory per block. CPU execution mode cannot
// know these (they are ptxas's decisions), but the same solution is also built for the GPU, and its library holds
// them, exactly: CPU execution mode reads them without a GPU.
//
// Read with `cuobjdump --dump-resource-usage` where the toolkit has it ($GPULAB_CUOBJDUMP, PATH, $CUDA_HOME/bin,
// /usr/local/cuda/bin); else from the library's own fatbin (.nv_fatbin: its cubins, zstd-compressed by CUDA 13's
// nvcc and unpacked with the system's libzstd.so.1), the same sections cuobjdump reads. Read once per library.
//
// A CPU execution mode launch is matched to its GPU kernel by the kernel's mangled name where the CPU build has a
// symbol for the launched function (the rewriter keeps each kernel's name and signature), else by the launch site's
// name and, for a kernel template, by the argument types the launch deduced from; a launch no kernel matches alone
// is reported as not matched, never guessed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpulab {

struct KernelResources {
    std::string mangled;  // "_ZN8heat_rod13ftcs_interiorEPKfPfif"
    std::string name;     // demangled: "heat_rod::ftcs_interior(float const*, float*, int, float)"
    std::string arch;     // "sm_90"
    int registers = 0;
    std::size_t stack_bytes = 0;   // cuobjdump's STACK: the frame, where spills and local arrays live
    std::size_t local_bytes = 0;   // cuobjdump's LOCAL
    std::size_t shared_bytes = 0;  // static shared memory per block
    std::size_t local_per_thread() const { return stack_bytes + local_bytes; }
};

struct GpuBuildResources {
    bool available = false;
    std::string library;  // the GPU build read
    std::string source;   // "cuobjdump --dump-resource-usage of the GPU build", or its fatbin read directly
    std::string arch;     // the architecture the figures are for ("sm_90"; the course's GPUs where built)
    std::string why;      // when not available
    std::vector<KernelResources> kernels;
};

// The cubins of a GPU build's fatbin (unpacked where compressed), with their architecture ("sm_90"): what
// instruction_counters.h maps the GPU's instruction offsets to lines with. `why`: why there is none, or what was
// skipped.
struct Cubin {
    std::string arch, bytes;
};
std::vector<Cubin> cubins_of(const std::string& library_bytes, std::string* why = nullptr);
std::vector<Cubin> cubins_in_library(const std::string& path, std::string* why = nullptr);

// The kernels of `gpu_library`, read once per library and process.
const GpuBuildResources& gpu_build_resources(const std::string& gpu_library);

// The two readers, apart (tests): cuobjdump's text, and a library's or object's bytes.
GpuBuildResources parse_cuobjdump_resource_usage(const std::string& text);
GpuBuildResources read_fatbin_resources(const std::string& elf_bytes);

// The GPU build of the solution whose CPU execution mode library is `cpu_library`, from the build's lab manifest
// (<build>/gpulab-labs/<lab>.json); "" with `why` set where there is none.
std::string gpu_build_of(const std::string& cpu_library, const std::string& lab, std::string& why);

struct KernelMatch {
    const KernelResources* kernel = nullptr;
    std::string how;  // "by its mangled name", "by its name", ...
    std::string why;  // when not matched
};

// The GPU kernel a CPU execution mode launch ran: `cpu_kernel` is the recorded launch's kernel (the function, or a
// kernel template's launch thunk), `launch_name` the name at its launch site, `static_shared` the static shared
// bytes its blocks reached.
KernelMatch match_kernel(const GpuBuildResources& build, const void* cpu_kernel, const std::string& launch_name,
                         std::size_t static_shared);

// The parameter types of a demangled function ("f(float const*, int)" -> {"float const*", "int"}), and the
// launch's argument types from a kernel template's launch thunk's demangled name (DeducedLauncher<...>::operator()
// <float const*&, int&>...), references dropped. Exposed for tests.
std::vector<std::string> parameter_types(const std::string& demangled);
std::vector<std::string> deduced_argument_types(const std::string& thunk_demangled);

}  // namespace gpulab
