// What the runtime answers about a kernel: cudaFuncSetAttribute's settings, cudaFuncGetAttributes, and the
// occupancy calculator (cudaOccupancy*), in the words of the GPU it answers as (gpu_answers.h).
//
// Facts of the device and the build (ptxVersion, binaryVersion, the dynamic shared memory a kernel may use, the
// carveout) are the GPU's. Facts of a kernel's GPU binary are not knowable here: no GPU binary runs. Registers,
// local and constant memory read 0, and the static shared memory is what the kernel's blocks reached in the launches
// that ran so far (0 before its first launch). README.md, "What can still differ from a GPU", says what catches a
// launch function that branches on them.
#include <algorithm>
#include <map>
#include <mutex>

#include "gpu_answers.h"
#include "internal.h"

namespace gpulab::cpu {
namespace {

struct KernelSettings {
  bool max_dynamic_set = false;
  size_t max_dynamic = 0;
  int carveout = -1;
  size_t static_shared = 0;  // the most one block of a launch reached
};

std::mutex g_mutex;
std::map<const void*, KernelSettings> g_kernels;  // guarded by g_mutex

KernelSettings settings_of(const void* kernel) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto it = g_kernels.find(kernel);
  return it == g_kernels.end() ? KernelSettings{} : it->second;
}

size_t default_dynamic_shared() { return static_cast<size_t>(gpu_answers().func_defaults.maxDynamicSharedSizeBytes); }

}  // namespace

size_t max_dynamic_shared() { return gpu_answers().prop.sharedMemPerBlockOptin; }

size_t max_dynamic_shared_for(const void* kernel) {
  const KernelSettings s = settings_of(kernel);
  return s.max_dynamic_set ? s.max_dynamic : default_dynamic_shared();
}

void kernel_ran(const void* kernel, size_t static_shared) {
  std::lock_guard<std::mutex> lock(g_mutex);
  KernelSettings& s = g_kernels[kernel];
  s.static_shared = std::max(s.static_shared, static_shared);
}

cudaError_t func_set_attribute(const void* func, cudaFuncAttribute attr, int value) {
  if (cudaError_t s = sticky_error()) return s;
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || static_cast<size_t>(value) > max_dynamic_shared())
      return fail(cudaErrorInvalidValue, format("cudaFuncSetAttribute: %d bytes of dynamic shared memory exceed "
                                                "the %zu-byte limit",
                                                value, max_dynamic_shared()));
    std::lock_guard<std::mutex> lock(g_mutex);
    KernelSettings& s = g_kernels[func];
    s.max_dynamic_set = true;
    s.max_dynamic = static_cast<size_t>(value);
  } else if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
    if (value < -1 || value > 100)
      return fail(cudaErrorInvalidValue, format("cudaFuncSetAttribute: a carveout of %d%% (-1, or 0 to 100)", value));
    std::lock_guard<std::mutex> lock(g_mutex);
    g_kernels[func].carveout = value;
  }
  return cudaSuccess;
}

cudaError_t func_get_attributes(cudaFuncAttributes* attr, const void* func) {
  if (cudaError_t s = sticky_error()) return s;
  if (!attr) return fail(cudaErrorInvalidValue, "cudaFuncGetAttributes: attr is null");
  if (!func) return fail(cudaErrorInvalidDeviceFunction, "cudaFuncGetAttributes: no kernel given");
  const KernelSettings s = settings_of(func);
  *attr = gpu_answers().func_defaults;
  attr->sharedSizeBytes = s.static_shared;
  attr->constSizeBytes = 0;
  attr->localSizeBytes = 0;
  attr->numRegs = 0;
  attr->maxDynamicSharedSizeBytes = static_cast<int>(s.max_dynamic_set ? s.max_dynamic : default_dynamic_shared());
  attr->preferredShmemCarveout = s.carveout;
  return cudaSuccess;
}

cudaError_t occupancy_max_active_blocks(int* blocks, const void* func, int block_size, size_t dynamic_shared,
                                        unsigned int) {
  if (cudaError_t s = sticky_error()) return s;
  if (!blocks) return fail(cudaErrorInvalidValue, "cudaOccupancyMaxActiveBlocksPerMultiprocessor: numBlocks is null");
  if (block_size <= 0)
    return fail(cudaErrorInvalidValue,
                format("cudaOccupancyMaxActiveBlocksPerMultiprocessor: block size %d", block_size));
  const cudaDeviceProp& gpu = gpu_answers().prop;
  const KernelSettings s = settings_of(func);
  // What limits the blocks an SM holds, as the CUDA occupancy calculator counts it (held to a recording from an
  // H100 by cpu_mode.GpuAnswers.OccupancyIsTheRecordedGpus): resident warps, resident blocks, and shared memory,
  // each block's rounded up to 128 bytes plus what the driver reserves per block. Registers would limit it too;
  // their count is a fact of the GPU binary, which does not exist here.
  if (block_size > gpu.maxThreadsPerBlock || dynamic_shared > max_dynamic_shared_for(func)) {
    *blocks = 0;
    return cudaSuccess;
  }
  const int warps = (block_size + gpu.warpSize - 1) / gpu.warpSize;
  const int by_warps = gpu.maxThreadsPerMultiProcessor / gpu.warpSize / warps;
  const size_t shared = (s.static_shared + dynamic_shared + 127) / 128 * 128 + gpu.reservedSharedMemPerBlock;
  const size_t by_shared = shared ? gpu.sharedMemPerMultiprocessor / shared : size_t(gpu.maxBlocksPerMultiProcessor);
  *blocks = static_cast<int>(std::min<size_t>({size_t(by_warps), size_t(gpu.maxBlocksPerMultiProcessor), by_shared}));
  return cudaSuccess;
}

cudaError_t occupancy_max_potential_block_size(int* min_grid_size, int* block_size, const void* func,
                                               size_t (*dynamic_shared_for)(int block, const void* context),
                                               const void* context, int block_size_limit, unsigned int flags) {
  if (cudaError_t s = sticky_error()) return s;
  if (!min_grid_size || !block_size)
    return fail(cudaErrorInvalidValue, "cudaOccupancyMaxPotentialBlockSize: minGridSize or blockSize is null");
  const cudaDeviceProp& gpu = gpu_answers().prop;
  // CUDA's own search (cuda_runtime.h): from the largest block the kernel and the device allow, down one warp at a
  // time, the block size that keeps the most threads resident on an SM; the first one that fills the SM wins.
  int largest = std::min(gpu.maxThreadsPerBlock, gpu_answers().func_defaults.maxThreadsPerBlock);
  if (block_size_limit > 0) largest = std::min(largest, block_size_limit);
  int best_block = 0, best_blocks = 0, best_threads = 0;
  for (int aligned = (largest + gpu.warpSize - 1) / gpu.warpSize * gpu.warpSize; aligned > 0;
       aligned -= gpu.warpSize) {
    const int tried = std::min(largest, aligned);
    int blocks = 0;
    if (cudaError_t e = occupancy_max_active_blocks(&blocks, func, tried, dynamic_shared_for(tried, context), flags))
      return e;
    if (blocks * tried > best_threads) {
      best_block = tried;
      best_blocks = blocks;
      best_threads = blocks * tried;
    }
    if (best_threads == gpu.maxThreadsPerMultiProcessor) break;
  }
  *min_grid_size = best_blocks * gpu.multiProcessorCount;
  *block_size = best_block;
  return cudaSuccess;
}

}  // namespace gpulab::cpu
