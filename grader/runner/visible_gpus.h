// How many GPUs the CUDA driver shows this process (CUDA_VISIBLE_DEVICES applies), asked of the driver library
// itself. gpulab-grade and gpulab-grade-class link CPU execution mode's harness, whose CUDA runtime is an
// emulation that by design sees no GPU, and a build for grading on the CPU then needs no GPU code at all.
#pragma once

#include <string>
#include <vector>

namespace gpulab::runner {

// 0 where there is no driver (libcuda.so.1), it cannot start, or it finds no device.
int visible_gpus();

// What a child process must be given as CUDA_VISIBLE_DEVICES to see only the i-th of `count` GPUs this process
// sees. Where this process runs under CUDA_VISIBLE_DEVICES="2,3" (a shared machine), its first GPU is physical
// GPU 2: a child told "0" would take somebody else's GPU. The entries are passed on as given (numbers, UUIDs or
// MIG names); without the variable they are the driver's numbers 0 .. count-1.
std::vector<std::string> visible_gpu_ids(int count);

}  // namespace gpulab::runner
