// What CPU execution mode answers to every run-time question about the device: the lab's GPU's answers (issue 43,
// item 3). A launch function that asked cudaGetDeviceProperties and took its taught path only where the answer was
// CPU execution mode's own (integrated = 1) got its reads counted on a path the GPU never ran. So the answers are
// this machine's GPU's where it has one, read through the driver, else a recording of a real GPU embedded at build
// time (grader/cpu/data, tools/record_gpu_answers.py, cmake/embed_gpu_answers.cmake). The grader's own code learns
// what really runs the kernels from <gpulab_cpu/executor_facts.h>, never from these answers.
#pragma once
#include <cuda_runtime.h>
#include <string>
#include <vector>

namespace gpulab::cpu {

// One call's answer on the GPU: its value where it succeeded, the error it returned where it did not.
struct Answer {
  bool ok = false;
  long long value = 0;
  cudaError_t error = cudaErrorInvalidValue;
};
inline Answer answer(long long value) { return {true, value, cudaSuccess}; }
inline Answer failed(cudaError_t error) { return {false, 0, error}; }

// cudaGetErrorName and cudaGetErrorString of one code, as the CUDA runtime words them.
struct ErrorWords {
  int code;
  const char* name;
  const char* text;
};

// cudaMallocPitch's pitch for a row of `width` bytes.
struct Pitch {
  size_t width, pitch;
};

struct GpuAnswers {
  // Where they come from, for the grader: "this machine's GPU, NVIDIA H100 ... (read through libcuda.so.1)", or
  // "a recording of NVIDIA H100 ... (grader/cpu/data/...); no GPU here to ask: <why>".
  std::string origin;
  cudaDeviceProp prop{};
  std::vector<Answer> attributes;  // by cudaDeviceAttr value
  std::vector<int> attribute_ids;  // the values cudaDeviceAttr names (the others answer unknown_attribute)
  std::vector<bool> named;         // by cudaDeviceAttr value: whether it is one of attribute_ids
  cudaError_t unknown_attribute = cudaErrorInvalidValue;  // for a number no cudaDeviceAttr has
  cudaError_t bad_device = cudaErrorInvalidDevice;        // for a device number other than 0
  int driver_version = 0, runtime_version = 0;
  Answer device_flags;
  std::string pci_bus_id;
  int stream_priority_least = 0, stream_priority_greatest = 0;
  Answer cache_config;
  size_t mem_total = 0;
  size_t context_bytes = 0;  // what the driver's context takes of the total (total - free with nothing allocated)
  std::vector<Answer> limits;  // by cudaLimit value
  std::vector<Pitch> pitches;
  // cudaFuncGetAttributes of a kernel with nothing in it: the fields that are facts of the device and of the build.
  cudaFuncAttributes func_defaults{};
  std::vector<ErrorWords> errors;  // ascending codes

  void set_attribute(int attr, Answer a);
  Answer attribute(int attr) const;  // failed(unknown_attribute) for a number no cudaDeviceAttr names
  void set_limit(int limit, Answer a);
  Answer limit(int limit) const;
  int attribute_or(int attr, int fallback) const;
  // The pitch cudaMallocPitch gives a row of `width` bytes: rounded up to the alignment the recording shows.
  size_t pitch_for(size_t width) const;
  const ErrorWords* words_of(int code) const;
  void sort_errors();
};

// Helpers of the generated recording (cmake/embed_gpu_answers.cmake).
void set_text(char* dst, size_t size, const char* text);
void set_bytes(char* dst, size_t size, const char* hex);

// The recording embedded at build time (GPULAB_CPU_GPU_ANSWERS, by default grader/cpu/data/gpu_answers_h100.json).
const GpuAnswers& recorded_answers();
const char* recorded_device_name();

// cudaDeviceProp as the CUDA runtime fills it from the driver's attributes (all but the name, uuid, luid and total
// memory, which the driver gives through calls of their own). `attribute` answers one cudaDeviceAttr.
template <class Attribute>
void fill_prop_from_attributes(cudaDeviceProp* p, Attribute attribute);

// This machine's first visible GPU read through the CUDA driver (dlopen libcuda.so.1: cuInit, cuDeviceGetAttribute,
// cuDeviceGetName, cuDeviceTotalMem_v2, cuDeviceGetUuid_v2, cuDeviceGetPCIBusId, cuDriverGetVersion; no context is
// created), with the recording's answers for what the driver only knows inside a context (limits, flags, free
// memory) or what is the runtime's own (its version, its error words). False, saying why, where there is none.
bool read_this_machines_gpu(GpuAnswers* out, std::string* why);

// The answers CPU execution mode gives: this machine's GPU's where it has one, else the recording. Decided at the
// first question and kept for the process (a forked child inherits them without asking the driver again).
const GpuAnswers& gpu_answers();

}  // namespace gpulab::cpu

#include "prop_from_attributes.h"
