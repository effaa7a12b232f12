// This machine's GPU, read through the CUDA driver library without creating a context (gpu_answers.h). CPU execution
// mode links no CUDA library: the driver is opened at run time, and a machine without one (a student's laptop, CI)
// answers from the recording. Opened once per process, before any kernel runs (the executor asks at its first
// launch), never from a CUDA thread's small fiber stack.
#include <dlfcn.h>

#include <string>

#include "gpu_answers.h"

namespace gpulab::cpu {
namespace {

// The driver API's types, as cuda.h declares them (CUresult and CUdevice are ints; CUuuid is 16 bytes).
using CuInit = int (*)(unsigned int);
using CuDeviceGetCount = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetAttribute = int (*)(int*, int, int);
using CuDeviceGetName = int (*)(char*, int, int);
using CuDeviceTotalMem = int (*)(size_t*, int);
using CuDeviceGetUuid = int (*)(CUuuid_st*, int);
using CuDeviceGetPCIBusId = int (*)(char*, int, int);
using CuDriverGetVersion = int (*)(int*);

constexpr int kCudaErrorInvalidDevice = 101;  // CUDA_ERROR_INVALID_DEVICE

template <class F>
bool find(void* library, const char* name, F* f, std::string* why) {
  *f = reinterpret_cast<F>(dlsym(library, name));
  if (!*f) *why = std::string("libcuda.so.1 has no ") + name;
  return *f != nullptr;
}

}  // namespace

bool read_this_machines_gpu(GpuAnswers* out, std::string* why) {
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    *why = "no CUDA driver: libcuda.so.1 not found";
    return false;
  }
  CuInit init;
  CuDeviceGetCount get_count;
  CuDeviceGet get_device;
  CuDeviceGetAttribute get_attribute;
  CuDeviceGetName get_name;
  CuDeviceTotalMem total_mem;
  CuDeviceGetUuid get_uuid;
  CuDeviceGetPCIBusId get_bus_id;
  CuDriverGetVersion get_version;
  if (!find(library, "cuInit", &init, why) || !find(library, "cuDeviceGetCount", &get_count, why) ||
      !find(library, "cuDeviceGet", &get_device, why) || !find(library, "cuDeviceGetAttribute", &get_attribute, why) ||
      !find(library, "cuDeviceGetName", &get_name, why) || !find(library, "cuDeviceTotalMem_v2", &total_mem, why) ||
      !find(library, "cuDeviceGetUuid_v2", &get_uuid, why) || !find(library, "cuDeviceGetPCIBusId", &get_bus_id, why) ||
      !find(library, "cuDriverGetVersion", &get_version, why))
    return false;
  if (const int e = init(0)) {
    *why = e == 100 ? "the CUDA driver sees no GPU" : "cuInit failed with CUDA driver error " + std::to_string(e);
    return false;
  }
  int count = 0, device = 0;
  if (get_count(&count) || count < 1 || get_device(&device, 0)) {
    *why = "the CUDA driver sees no GPU";
    return false;
  }
  // Everything the driver cannot say without a context (limits, flags, free memory), and what belongs to the
  // runtime CPU execution mode stands in for (its version, its error words, cudaMallocPitch's alignment), stays
  // the recording's.
  const GpuAnswers& recorded = recorded_answers();
  GpuAnswers a = recorded;
  for (const int attr : recorded.attribute_ids) {
    int value = 0;
    const int e = get_attribute(&value, attr, device);
    a.attributes[attr] = e == 0 ? answer(value)
                                : failed(e == kCudaErrorInvalidDevice ? cudaErrorInvalidDevice : cudaErrorInvalidValue);
  }
  cudaDeviceProp& p = a.prop;
  p = cudaDeviceProp{};
  fill_prop_from_attributes(&p, [&](cudaDeviceAttr attr) { return a.attribute(attr).value; });
  if (get_name(p.name, sizeof p.name - 1, device) || total_mem(&p.totalGlobalMem, device) ||
      get_uuid(&p.uuid, device)) {
    *why = "the CUDA driver could not name the GPU";
    return false;
  }
  char bus[64] = {0};
  if (get_bus_id(bus, sizeof bus - 1, device) == 0) a.pci_bus_id = bus;
  get_version(&a.driver_version);
  a.mem_total = p.totalGlobalMem;
  // A kernel built for sm_90 (and compute_90 PTX) runs as the device's own binary: JIT-compiled where it is not
  // sm_90, whose binaryVersion is then the device's.
  a.func_defaults.binaryVersion = p.major * 10 + p.minor;
  a.origin = std::string("this machine's GPU, ") + p.name + " (read through libcuda.so.1)";
  *out = a;
  return true;
}

}  // namespace gpulab::cpu
