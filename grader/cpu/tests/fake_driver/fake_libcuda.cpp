// A stand-in for the CUDA driver (libcuda.so.1) that answers with made-up numbers, so that CPU execution mode's
// reading of "this machine's GPU" (src/driver_answers.cpp) is tested where there is no GPU:
// cpu_mode.GpuAnswers.FromTheDriverWhereThereIsOne runs with this library first on LD_LIBRARY_PATH. The signatures
// are the driver API's (cuda.h), with its plain types: CUresult and CUdevice are ints, CUuuid is 16 bytes.
#include <cstddef>
#include <cstring>

extern "C" {

// Every attribute is its number times 1000 plus 7, except attribute 92, which the driver refuses
// (CUDA_ERROR_INVALID_VALUE), and any number past 200 (the same).
int cuInit(unsigned int) { return 0; }
int cuDeviceGetCount(int* count) {
  *count = 1;
  return 0;
}
int cuDeviceGet(int* device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? 0 : 101;
}
int cuDeviceGetAttribute(int* value, int attribute, int device) {
  if (device != 0) return 101;
  if (attribute == 92 || attribute <= 0 || attribute > 200) return 1;
  *value = attribute * 1000 + 7;
  return 0;
}
int cuDeviceGetName(char* name, int length, int) {
  std::strncpy(name, "gpulab fake driver", static_cast<size_t>(length));
  return 0;
}
int cuDeviceTotalMem_v2(size_t* bytes, int) {
  *bytes = 123456789;
  return 0;
}
int cuDeviceGetUuid_v2(char* uuid, int) {
  for (int i = 0; i < 16; ++i) uuid[i] = static_cast<char>(i * 17);
  return 0;
}
int cuDeviceGetPCIBusId(char* bus, int length, int) {
  std::strncpy(bus, "0000:AB:00.0", static_cast<size_t>(length));
  return 0;
}
int cuDriverGetVersion(int* version) {
  *version = 12345;
  return 0;
}

}  // extern "C"
