// Reaches the grader's CPU-mode API through a namespace alias: gpulab-cu2cpp must refuse the name.
#include <cuda_runtime.h>

namespace g = gpulab;

const char* why_it_stopped() { return g::cpu::last_error_detail(); }
