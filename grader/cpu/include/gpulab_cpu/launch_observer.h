// Watching the launches CPU execution mode runs (for graders, not student code): what the GPU grader learns
// by interposing on cudaLaunchKernel and asking cudaFuncGetAttributes, as far as the CPU can know it.
//
// static_shared is the largest number of bytes of static __shared__ arrays one block of the launch reached
// (each array counts once per block, when the first thread gets to its declaration). A GPU reports every
// array the kernel declares, reached or not. Registers and local memory (spills) are compiler decisions of
// a GPU build: CPU execution mode cannot know them.
#pragma once
#include <cstddef>
#include "types.h"

namespace gpulab::cpu {

struct LaunchRecord {
  const void* kernel = nullptr;
  dim3 grid, block;
  size_t dynamic_shared = 0;
  size_t static_shared = 0;
  const char* name = nullptr;  // the kernel's name at its launch site, for messages
  const char* file = nullptr;  // the launch site: the .cu file (gpulab-cu2cpp keeps its name and lines) and line
  int line = 0;
};

using LaunchObserver = void (*)(const LaunchRecord& launch);

// Calls `observer` after every launch that ran (nullptr: none). One observer at a time.
void set_launch_observer(LaunchObserver observer);

// While on, a launch is reported to the observer and not run (nor checked: the grader judges its geometry
// itself, in the GPU's words), and cudaMemcpy and cudaMemset do nothing: the grader learns the launch
// geometry a launch function uses at sizes far too large to run here (the GPU's timed sizes).
void set_dry_run(bool on);
bool dry_run();

}  // namespace gpulab::cpu
