// First line of every file that gpulab-cu2cpp generates: nvcc includes cuda_runtime.h implicitly in every .cu
// file, so student code may rely on it without including it.
#pragma once
#include <cuda_runtime.h>
