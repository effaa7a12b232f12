// How many GPUs the CUDA driver shows this process (CUDA_VISIBLE_DEVICES applies), asked of the driver library
// itself. gpulab-grade and gpulab-grade-class link CPU execution mode's harness, whose CUDA runtime is an
// emulation that by design sees no GPU, and a build for grading on the CPU then needs no GPU code at all.
#pragma once

namespace gpulab::runner {

// 0 where there is no driver (libcuda.so.1), it cannot start, or it finds no device.
int visible_gpus();

}  // namespace gpulab::runner
