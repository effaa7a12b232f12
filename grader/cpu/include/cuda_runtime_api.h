// CPU execution mode (gpulab): forwards to the CPU runtime, as the real header is part of cuda_runtime.h.
#pragma once
#include <cuda_runtime.h>
