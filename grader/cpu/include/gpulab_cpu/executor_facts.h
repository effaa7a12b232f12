// What really runs the kernels in CPU execution mode, for the grader's own code: the CUDA runtime's calls
// (cudaGetDeviceProperties, cudaDeviceGetAttribute, cudaMemGetInfo...) answer as the lab's GPU does, so that student
// code cannot tell the modes apart (README.md, "What device code sees"), and a grader that needs the truth (how many
// worker threads run blocks, how much memory holds the buffers) asks here. Student code never reaches it:
// gpulab-cu2cpp refuses every gpulab name in the files it rewrites.
#pragma once
#include <cstddef>

namespace gpulab::cpu {

struct ExecutorFacts {
  const char* name;          // "CPU execution (gpulab)"
  int workers;               // OS threads that run blocks (GPULAB_CPU_THREADS, else the cores this process may use)
  size_t host_memory_bytes;  // this machine's memory, which holds the device buffers
  int host_l2_bytes;         // this machine's L2 cache
  const char* answers_as;    // the GPU whose answers the runtime gives: "NVIDIA H100 80GB HBM3"
  const char* answers_from;  // where they come from: this machine's GPU (through its driver), or a recording
};

// The first call may read this machine's GPU through its driver (once per process): make it before forking.
ExecutorFacts executor_facts();

}  // namespace gpulab::cpu
