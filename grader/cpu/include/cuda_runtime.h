// CPU execution mode (gpulab): this directory is put first on the include path of code built for the CPU,
// so that unchanged student code's `#include <cuda_runtime.h>` reaches the CPU runtime instead of CUDA's.
#pragma once
#include "gpulab_cpu/runtime.h"
