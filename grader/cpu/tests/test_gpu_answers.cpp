// CPU execution mode answers every question about the device as the lab's GPU does (issue 43, item 3): where this
// machine has no GPU, as the recording it was built with (GPULAB_CPU_GPU_ANSWERS). A launch function that asked
// (cudaGetDeviceProperties(...).integrated, the SM count, an attribute CPU mode once refused) took one path on the
// GPU and another here, where its reads are counted. The same answers, field by field and attribute by attribute
// through the program that recorded them, are checked by cpu_mode.answers_are_the_recordings (and, on a machine
// with a GPU, cpu_mode.answers_are_this_gpus): tests/CMakeLists.txt.
#include <cuda_runtime.h>
#include <gpulab_cpu/executor_facts.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "gpu_answers.h"
#include "test_util.h"

namespace {
using nlohmann::json;
using ::testing::HasSubstr;

const json& recording() {
  static const json j = json::parse(std::ifstream(GPULAB_CPU_GPU_ANSWERS_FILE));
  return j;
}

// The answers come from the recording here unless this machine has a GPU (then from it: answers_are_this_gpus).
#define REQUIRE_RECORDED_ANSWERS()                                                                           \
  do {                                                                                                       \
    if (std::string(gpulab::cpu::executor_facts().answers_from).rfind("a recording", 0) != 0)                \
      GTEST_SKIP() << "this machine's GPU answers here (" << gpulab::cpu::executor_facts().answers_from      \
                   << "): cpu_mode.answers_are_this_gpus compares them";                                     \
  } while (0)

cudaError_t error_named(const std::string& name) {
  for (int code = 0; code < 20000; ++code)
    if (name == cudaGetErrorName(static_cast<cudaError_t>(code))) return static_cast<cudaError_t>(code);
  ADD_FAILURE() << "no error named " << name;
  return cudaErrorUnknown;
}

TEST(GpuAnswers, IntegratedAndTheSmCountAreTheGpus) {
  REQUIRE_RECORDED_ANSWERS();
  cudaDeviceProp p;
  CUDA_OK(cudaGetDeviceProperties(&p, 0));
  EXPECT_EQ(p.integrated, recording()["prop"]["integrated"].get<int>());
  EXPECT_EQ(p.multiProcessorCount, recording()["prop"]["multiProcessorCount"].get<int>());
  EXPECT_EQ(std::string(p.name), recording()["device"].get<std::string>());
  int integrated = -1;
  CUDA_OK(cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, 0));
  EXPECT_EQ(integrated, recording()["attributes"]["cudaDevAttrIntegrated"]["value"].get<int>());
  // Not CPU execution mode's executor: that is the grader's to know (executor_facts), never the program's.
  EXPECT_THAT(p.name, ::testing::Not(HasSubstr("CPU")));
}

// Every attribute the recording holds, through cudaDeviceGetAttribute: its value, or the GPU's error (the recording
// turned into the runtime's table is checked field by field by cpu_mode.answers_are_the_recordings).
TEST(GpuAnswers, EveryAttributeAsRecorded) {
  REQUIRE_RECORDED_ANSWERS();
  const gpulab::cpu::GpuAnswers& table = gpulab::cpu::recorded_answers();
  EXPECT_EQ(table.attribute_ids.size(), recording()["attributes"].size());
  for (int attr : table.attribute_ids) {
    const gpulab::cpu::Answer expected = table.attribute(attr);
    int value = -12345;
    const cudaError_t e = cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(attr), 0);
    if (expected.ok) {
      EXPECT_EQ(e, cudaSuccess) << "attribute " << attr;
      EXPECT_EQ(value, expected.value) << "attribute " << attr;
    } else {
      EXPECT_EQ(e, expected.error) << "attribute " << attr;
      cudaGetLastError();
    }
  }
}

// CPU execution mode once refused every attribute it did not know: an error where the GPU answers is a tell.
TEST(GpuAnswers, AttributesNewToCpuModeAnswerAsTheGpu) {
  REQUIRE_RECORDED_ANSWERS();
  for (const char* name : {"cudaDevAttrHostNumaMultinodeIpcSupported", "cudaDevAttrMemSyncDomainCount",
                           "cudaDevAttrClusterLaunch", "cudaDevAttrReserved129", "cudaDevAttrGpuOverlap"}) {
    SCOPED_TRACE(name);
    const json& answer = recording()["attributes"][name];
    ASSERT_TRUE(answer.contains("value")) << answer.dump();
  }
  int v = -1;
  CUDA_OK(cudaDeviceGetAttribute(&v, cudaDevAttrMemSyncDomainCount, 0));
  EXPECT_EQ(v, recording()["attributes"]["cudaDevAttrMemSyncDomainCount"]["value"].get<int>());
  CUDA_OK(cudaDeviceGetAttribute(&v, cudaDevAttrHostNumaMultinodeIpcSupported, 0));
  EXPECT_EQ(v, recording()["attributes"]["cudaDevAttrHostNumaMultinodeIpcSupported"]["value"].get<int>());
}

// A number no cudaDeviceAttr names, and a device other than 0: the GPU's errors, not sticky.
TEST(GpuAnswers, UnknownAttributeAndDeviceFailAsOnTheGpu) {
  REQUIRE_RECORDED_ANSWERS();
  int v = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(1000), 0),
            error_named(recording()["unknown_attributes"]["1000"]));
  EXPECT_EQ(cudaGetLastError(), error_named(recording()["unknown_attributes"]["1000"]));
  cudaDeviceProp p;
  EXPECT_EQ(cudaGetDeviceProperties(&p, 1), error_named(recording()["bad_device"]["cudaGetDeviceProperties"]));
  EXPECT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 1),
            error_named(recording()["bad_device"]["cudaDeviceGetAttribute"]));
  EXPECT_EQ(cudaSetDevice(1), error_named(recording()["bad_device"]["cudaSetDevice"]));
  cudaGetLastError();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(GpuAnswers, VersionsFlagsBusIdAndLimitsAsRecorded) {
  REQUIRE_RECORDED_ANSWERS();
  int driver = 0, runtime = 0, count = 0, device = -1;
  CUDA_OK(cudaDriverGetVersion(&driver));
  CUDA_OK(cudaRuntimeGetVersion(&runtime));
  CUDA_OK(cudaGetDeviceCount(&count));
  CUDA_OK(cudaGetDevice(&device));
  EXPECT_EQ(driver, recording()["driver_version"].get<int>());
  EXPECT_EQ(runtime, recording()["runtime_version"].get<int>());
  EXPECT_EQ(count, recording()["device_count"]["value"].get<int>());
  EXPECT_EQ(device, recording()["current_device"]["value"].get<int>());
  unsigned flags = 0;
  CUDA_OK(cudaGetDeviceFlags(&flags));
  EXPECT_EQ(flags, recording()["device_flags"]["value"].get<unsigned>());
  char bus[64];
  CUDA_OK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  EXPECT_EQ(std::string(bus), recording()["pci_bus_id"].get<std::string>());
  int least = 1, greatest = 1;
  CUDA_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  EXPECT_EQ(least, recording()["stream_priority_range"][0].get<int>());
  EXPECT_EQ(greatest, recording()["stream_priority_range"][1].get<int>());
  const std::pair<cudaLimit, const char*> limits[] = {
      {cudaLimitStackSize, "cudaLimitStackSize"},
      {cudaLimitPrintfFifoSize, "cudaLimitPrintfFifoSize"},
      {cudaLimitMallocHeapSize, "cudaLimitMallocHeapSize"},
      {cudaLimitDevRuntimeSyncDepth, "cudaLimitDevRuntimeSyncDepth"},
      {cudaLimitDevRuntimePendingLaunchCount, "cudaLimitDevRuntimePendingLaunchCount"},
      {cudaLimitMaxL2FetchGranularity, "cudaLimitMaxL2FetchGranularity"},
      {cudaLimitPersistingL2CacheSize, "cudaLimitPersistingL2CacheSize"}};
  for (const auto& [limit, name] : limits) {
    SCOPED_TRACE(name);
    const json& expected = recording()["limits"][name];
    size_t value = 0;
    const cudaError_t e = cudaDeviceGetLimit(&value, limit);
    if (expected.contains("value")) {
      EXPECT_EQ(e, cudaSuccess);
      EXPECT_EQ(value, expected["value"].get<size_t>());
    } else {
      EXPECT_EQ(e, error_named(expected["error"]));
      cudaGetLastError();
    }
  }
  // What a program sets, it reads back, as on a GPU.
  CUDA_OK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
  size_t stack = 0;
  CUDA_OK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
  EXPECT_EQ(stack, 4096u);
}

// The GPU's memory, less what its context takes (the recording's free memory with nothing allocated), less the
// buffers this process holds.
TEST(GpuAnswers, MemoryIsTheGpusLessItsBuffers) {
  REQUIRE_RECORDED_ANSWERS();
  size_t free_bytes = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free_bytes, &total));
  EXPECT_EQ(total, recording()["mem_info"]["total"].get<size_t>());
  EXPECT_EQ(free_bytes, recording()["mem_info"]["free"].get<size_t>());
  void* p = nullptr;
  CUDA_OK(cudaMalloc(&p, size_t(100) << 20));
  size_t less = 0;
  CUDA_OK(cudaMemGetInfo(&less, &total));
  EXPECT_GE(free_bytes - less, size_t(100) << 20);
  EXPECT_LE(free_bytes - less, size_t(102) << 20);
  CUDA_OK(cudaFree(p));
  // More than the GPU has fails as there (and more than this machine holds fails here too: README.md).
  EXPECT_EQ(cudaMalloc(&p, total + 1), cudaErrorMemoryAllocation);
  cudaGetLastError();
}

TEST(GpuAnswers, PitchAsRecorded) {
  REQUIRE_RECORDED_ANSWERS();
  for (const auto& [width, answer] : recording()["malloc_pitch"].items()) {
    void* p = nullptr;
    size_t pitch = 0;
    CUDA_OK(cudaMallocPitch(&p, &pitch, std::stoul(width), 2));
    EXPECT_EQ(pitch, answer["value"].get<size_t>()) << width << " bytes a row";
    CUDA_OK(cudaFree(p));
  }
}

TEST(GpuAnswers, ErrorWordsAreTheRuntimes) {
  REQUIRE_RECORDED_ANSWERS();
  for (const auto& [code, words] : recording()["errors"].items()) {
    const auto e = static_cast<cudaError_t>(std::stoi(code));
    EXPECT_STREQ(cudaGetErrorName(e), words[0].get<std::string>().c_str()) << code;
    EXPECT_STREQ(cudaGetErrorString(e), words[1].get<std::string>().c_str()) << code;
  }
  EXPECT_STREQ(cudaGetErrorString(static_cast<cudaError_t>(12345)), "unrecognized error code");
}

// cudaFuncGetAttributes succeeds as on a GPU, with the device's and the build's facts; a GPU binary's (registers,
// local memory) do not exist here, and the static shared memory is what the kernel's blocks reached so far.
TEST(GpuAnswers, FuncAttributesAreTheDevicesWhereTheyCanBe) {
  REQUIRE_RECORDED_ANSWERS();
  cudaFuncAttributes before, after;
  CUDA_OK(tile_kernel_attributes(&before, &after));
  const json& expected = recording()["func_attributes"];
  for (const cudaFuncAttributes* a : {&before, &after}) {
    EXPECT_EQ(a->ptxVersion, expected["ptxVersion"].get<int>());
    EXPECT_EQ(a->binaryVersion, expected["binaryVersion"].get<int>());
    EXPECT_EQ(a->maxDynamicSharedSizeBytes, expected["maxDynamicSharedSizeBytes"].get<int>());
    EXPECT_EQ(a->preferredShmemCarveout, expected["preferredShmemCarveout"].get<int>());
    EXPECT_EQ(a->maxThreadsPerBlock, expected["maxThreadsPerBlock"].get<int>());
  }
  EXPECT_EQ(before.sharedSizeBytes, 0u);
  EXPECT_EQ(after.sharedSizeBytes, 8 * 8 * sizeof(float));
}

TEST(GpuAnswers, OccupancyIsTheRecordedGpus) {
  REQUIRE_RECORDED_ANSWERS();
  for (const auto& [key, answer] : recording()["occupancy"].items()) {
    int block = 0;
    size_t shared = 0;
    ASSERT_EQ(std::sscanf(key.c_str(), "%d threads, %zu B", &block, &shared), 2) << key;
    int blocks = -1;
    CUDA_OK(empty_kernel_occupancy(block, shared, &blocks));
    EXPECT_EQ(blocks, answer["value"].get<int>()) << key;
  }
  int min_grid = 0, block = 0;
  CUDA_OK(empty_kernel_potential_block(&min_grid, &block));
  EXPECT_EQ(min_grid, recording()["max_potential_block_size"]["min_grid"].get<int>());
  EXPECT_EQ(block, recording()["max_potential_block_size"]["block"].get<int>());
}

// A launch fails where it fails on the GPU: its limits are the answered ones.
TEST(GpuAnswers, LaunchLimitsAreTheGpus) {
  REQUIRE_RECORDED_ANSWERS();
  DeviceBuffer<float> in(4), out(4);
  const int too_many = recording()["prop"]["maxThreadsPerBlock"].get<int>() + 32;
  EXPECT_EQ(stencil1d_dynamic(in.get(), out.get(), 4, 1, 1, 1, too_many, nullptr), cudaErrorInvalidConfiguration);
  EXPECT_THAT(gpulab::cpu::last_error_detail(), HasSubstr("> " + std::to_string(too_many - 32)));
  cudaGetLastError();
}

// clock64() and, in device code, clock() count the answered GPU's cycles: one count, at cudaDevAttrClockRate.
TEST(GpuAnswers, DeviceClocksCountTheGpusCycles) {
  REQUIRE_RECORDED_ANSWERS();
  DeviceBuffer<long long> clocks(4);
  const auto start = std::chrono::steady_clock::now();
  CUDA_OK(device_clocks(clocks.get()));
  const long long first = clocks.download()[1];
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CUDA_OK(device_clocks(clocks.get()));
  const std::vector<long long> second = clocks.download();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double hz = recording()["attributes"]["cudaDevAttrClockRate"]["value"].get<double>() * 1e3;
  for (int spelling : {0, 2, 3})  // clock(), ::clock(), std::clock()
    EXPECT_NEAR(double(second[spelling]), double(second[1]), hz * 0.01) << "clock() and clock64() are one counter";
  EXPECT_GE(double(second[1] - first), hz * 0.020 * 0.9);
  EXPECT_LE(double(second[1] - first), hz * seconds * 1.1);
}

// The grader's own code learns what really runs the kernels here, and what the runtime answers as.
TEST(GpuAnswers, ExecutorFactsTellTheGraderTheTruth) {
  const gpulab::cpu::ExecutorFacts facts = gpulab::cpu::executor_facts();
  EXPECT_STREQ(facts.name, "CPU execution (gpulab)");
  EXPECT_GE(facts.workers, 1);
  EXPECT_GT(facts.host_memory_bytes, 0u);
  cudaDeviceProp p;
  CUDA_OK(cudaGetDeviceProperties(&p, 0));
  EXPECT_STREQ(facts.answers_as, p.name);
  EXPECT_THAT(facts.answers_from, ::testing::AnyOf(HasSubstr("a recording of"), HasSubstr("this machine's GPU")));
}

// The driver reading (a machine with a GPU) fills cudaDeviceProp from the attributes as CUDA's runtime does: each
// field held to the recording, whose prop and attributes came from one real GPU.
TEST(GpuAnswers, PropFromAttributesIsTheRecordedProp) {
  const gpulab::cpu::GpuAnswers& table = gpulab::cpu::recorded_answers();
  cudaDeviceProp from{};
  gpulab::cpu::fill_prop_from_attributes(&from, [&](cudaDeviceAttr a) { return table.attribute(a).value; });
  // What the driver gives through calls of its own.
  std::memcpy(from.name, table.prop.name, sizeof from.name);
  from.uuid = table.prop.uuid;
  std::memcpy(from.luid, table.prop.luid, sizeof from.luid);
  from.luidDeviceNodeMask = table.prop.luidDeviceNodeMask;
  from.totalGlobalMem = table.prop.totalGlobalMem;
  EXPECT_EQ(std::memcmp(&from, &table.prop, sizeof from), 0);
  // Name the fields that differ, for whoever maps a new toolkit's fields.
  const auto* a = reinterpret_cast<const unsigned char*>(&from);
  const auto* b = reinterpret_cast<const unsigned char*>(&table.prop);
  for (size_t i = 0; i < sizeof from; ++i)
    if (a[i] != b[i]) ADD_FAILURE() << "cudaDeviceProp differs at byte offset " << i;
}

// Where the machine has a GPU, the answers are the driver's: here a stand-in libcuda.so.1 (tests/fake_driver), found
// first on LD_LIBRARY_PATH by the check cpu_mode.answers_are_the_drivers, answers each attribute with its number times
// 1000 plus 7 and refuses attribute 92. What the driver cannot say without a context stays the recording's.
TEST(GpuAnswers, FromTheDriverWhereThereIsOne) {
  if (!std::getenv("GPULAB_CPU_TEST_FAKE_DRIVER"))
    GTEST_SKIP() << "runs as cpu_mode.answers_are_the_drivers, with the stand-in driver first on LD_LIBRARY_PATH";
  EXPECT_STREQ(gpulab::cpu::executor_facts().answers_from,
               "this machine's GPU, gpulab fake driver (read through libcuda.so.1)");
  const gpulab::cpu::GpuAnswers& recorded = gpulab::cpu::recorded_answers();
  const auto driver_answer = [](int attr) { return attr == 92 ? -1 : attr * 1000 + 7; };
  for (int attr : recorded.attribute_ids) {
    int value = 0;
    const cudaError_t e = cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(attr), 0);
    if (driver_answer(attr) < 0) {
      EXPECT_EQ(e, cudaErrorInvalidValue) << "attribute " << attr;
      cudaGetLastError();
    } else {
      EXPECT_EQ(e, cudaSuccess) << "attribute " << attr;
      EXPECT_EQ(value, driver_answer(attr)) << "attribute " << attr;
    }
  }
  int v = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(1000), 0), recorded.unknown_attribute);
  cudaGetLastError();
  cudaDeviceProp expected{};
  gpulab::cpu::fill_prop_from_attributes(&expected, [&](cudaDeviceAttr a) { return driver_answer(a); });
  std::strcpy(expected.name, "gpulab fake driver");
  for (int i = 0; i < 16; ++i) expected.uuid.bytes[i] = static_cast<char>(i * 17);
  expected.totalGlobalMem = 123456789;
  cudaDeviceProp p;
  CUDA_OK(cudaGetDeviceProperties(&p, 0));
  EXPECT_EQ(std::memcmp(&p, &expected, sizeof p), 0);
  EXPECT_EQ(p.integrated, cudaDevAttrIntegrated * 1000 + 7);
  EXPECT_EQ(p.multiProcessorCount, cudaDevAttrMultiProcessorCount * 1000 + 7);
  int driver = 0, runtime = 0;
  CUDA_OK(cudaDriverGetVersion(&driver));
  CUDA_OK(cudaRuntimeGetVersion(&runtime));
  EXPECT_EQ(driver, 12345);
  EXPECT_EQ(runtime, recorded.runtime_version);
  char bus[64];
  CUDA_OK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  EXPECT_STREQ(bus, "0000:AB:00.0");
  size_t free_bytes = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free_bytes, &total));
  EXPECT_EQ(total, 123456789u);
  size_t stack = 0;
  CUDA_OK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
  EXPECT_EQ(stack, static_cast<size_t>(recorded.limit(cudaLimitStackSize).value));
}

}  // namespace
