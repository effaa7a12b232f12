#include "visible_gpus.h"

#include <dlfcn.h>

namespace gpulab::runner {

int visible_gpus() {
    // The driver API's own entry points (cuda.h), looked up by name: CUresult is an int, 0 is CUDA_SUCCESS.
    using Init = int (*)(unsigned);
    using DeviceGetCount = int (*)(int*);
    void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (driver == nullptr) return 0;
    const auto init = reinterpret_cast<Init>(::dlsym(driver, "cuInit"));
    const auto device_get_count = reinterpret_cast<DeviceGetCount>(::dlsym(driver, "cuDeviceGetCount"));
    int count = 0;
    if (init == nullptr || device_get_count == nullptr || init(0) != 0 || device_get_count(&count) != 0) count = 0;
    // Left loaded: unloading an initialised driver is not supported, and the process may ask again.
    return count;
}

}  // namespace gpulab::runner
