#include "visible_gpus.h"

#include <dlfcn.h>

#include <cstdlib>
#include <sstream>

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

std::vector<std::string> visible_gpu_ids(int count) {
    std::vector<std::string> ids;
    const char* given = std::getenv("CUDA_VISIBLE_DEVICES");
    if (given != nullptr && *given != '\0') {
        // The driver reads the list up to its first invalid entry, so the `count` devices it found are the first
        // `count` entries.
        std::stringstream list(given);
        for (std::string entry; int(ids.size()) < count && std::getline(list, entry, ',');)
            if (!entry.empty()) ids.push_back(entry);
        return ids;
    }
    for (int i = 0; i < count; ++i) ids.push_back(std::to_string(i));
    return ids;
}

}  // namespace gpulab::runner
