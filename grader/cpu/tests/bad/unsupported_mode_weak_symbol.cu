// Asks whether CPU execution mode's runtime is loaded: a weak reference to one of its functions, by its mangled name,
// is null on a GPU. gpulab-cu2cpp must refuse the name.
#include <cuda_runtime.h>

extern "C" const char* _ZN6gpulab3cpu17last_error_detailEv() __attribute__((weak));

bool runs_on_the_cpu() { return _ZN6gpulab3cpu17last_error_detailEv != nullptr; }
