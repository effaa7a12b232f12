// What the GPU grader records of a real launch, for holding a timed launch to the checked one (gpulab/
// same_as_checked.h): each kernel argument's bytes (sizes from the driver), which arguments are device addresses,
// and what a copy to a __device__ variable carried. Needs a GPU: skipped, saying so, without one. The comparison
// itself is checked without a GPU (same_as_checked_test.cpp).
#include "gpulab/device_facts.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/timed_work.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>

namespace gpulab_selftest {

__device__ int g_skip_tile;

__global__ void scaled(const float* in, float* out, int n, float r, int mode) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (mode + g_skip_tile) ? in[i] : r * in[i];
}

// A launch function with a mode flag in each place a cheat can put it: an argument and a __device__ variable.
void launch(const float* in, float* out, int n, int mode, int flag) {
    cudaMemcpyToSymbol(g_skip_tile, &flag, sizeof flag);
    scaled<<<(n + 127) / 128, 128>>>(in, out, n, 0.5f, mode);
}

}  // namespace gpulab_selftest

namespace {

#define REQUIRE_GPU()                                                                                  \
    if (!gpulab::device_facts().available)                                                             \
    GTEST_SKIP() << "needs a CUDA GPU (" << gpulab::device_facts().unavailable_reason                  \
                 << "): what the interposed launch records can only be seen on one"

template <typename T>
T as(const gpulab::RecordedArgument& a) {
    T v{};
    EXPECT_EQ(a.bytes.size(), sizeof v);
    if (a.bytes.size() == sizeof v) std::memcpy(&v, a.bytes.data(), sizeof v);
    return v;
}

struct Buffers {
    float* in = nullptr;
    float* out = nullptr;
    static constexpr int n = 1000;
    Buffers() {
        cudaMalloc(&in, n * sizeof(float));
        cudaMalloc(&out, n * sizeof(float));
    }
    ~Buffers() {
        cudaFree(in);
        cudaFree(out);
    }
};

TEST(SameAsCheckedOnGpu, RecordsEachArgumentAndTheSymbolCopy) {
    REQUIRE_GPU();
    Buffers b;
    std::vector<gpulab::RecordedLaunch> launches;
    std::vector<gpulab::RecordedCall> calls;
    {
        gpulab::LaunchRecorder recorder;
        gpulab_selftest::launch(b.in, b.out, Buffers::n, 1, 7);
        launches = recorder.launches();
        calls = recorder.calls();
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(launches.size(), 1u);
    ASSERT_TRUE(launches[0].arguments_known) << "the driver did not tell the kernel's parameters (cuKernelGetParamInfo, "
                                                "CUDA 12.4 and later)";
    const auto& args = launches[0].arguments;
    ASSERT_EQ(args.size(), 5u);
    EXPECT_EQ(as<const float*>(args[0]), b.in);
    EXPECT_EQ(as<float*>(args[1]), b.out);
    EXPECT_EQ(as<int>(args[2]), Buffers::n);
    EXPECT_EQ(as<float>(args[3]), 0.5f);
    EXPECT_EQ(as<int>(args[4]), 1);
    gpulab::classify_arguments(launches);
    using Kind = gpulab::RecordedArgument::Kind;
    EXPECT_EQ(launches[0].arguments[0].kind, Kind::device_pointer);
    EXPECT_EQ(launches[0].arguments[1].kind, Kind::device_pointer);
    EXPECT_EQ(launches[0].arguments[2].kind, Kind::value);

    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].symbol, static_cast<const void*>(&gpulab_selftest::g_skip_tile));
    EXPECT_EQ(calls[0].bytes, sizeof(int));
    EXPECT_TRUE(calls[0].source_read);
    EXPECT_EQ(calls[0].preview, "07 00 00 00");
    EXPECT_EQ(calls[0].launches_before, 0u);
    EXPECT_NE(gpulab::symbol_name_of(calls[0].symbol).find("g_skip_tile"), std::string::npos)
        << gpulab::symbol_name_of(calls[0].symbol);
}

TEST(SameAsCheckedOnGpu, AFlagFlippedAfterTheCheckedLaunchFails) {
    REQUIRE_GPU();
    Buffers b;
    gpulab::TimedWork work;
    work.call = "launch at n = 1000";
    const auto run = [&](int mode, int flag) { gpulab_selftest::launch(b.in, b.out, Buffers::n, mode, flag); };
    gpulab::first_launch_under_deadline(work, [&] { run(0, 0); }, [&] { run(0, 0); });
    ASSERT_EQ(work.checked.size(), 1u);
    const auto timed = [&](int mode, int flag) {
        gpulab::LaunchRecorder recorder;
        run(mode, flag);
        const auto launches = recorder.launches();
        const auto calls = recorder.calls();
        cudaDeviceSynchronize();
        return gpulab::audit_timed_launch(work, launches, calls);
    };
    EXPECT_EQ(timed(0, 0), "");
    const std::string by_argument = timed(1, 0);
    EXPECT_NE(by_argument.find("scaled(device pointer, device pointer, 1000, 0.5, *1*) in the timed launch"),
              std::string::npos)
        << by_argument;
    EXPECT_NE(by_argument.find("argument 5 (int): 1 now, 0 when checked"), std::string::npos) << by_argument;
    const std::string by_symbol = timed(0, 1);
    EXPECT_NE(by_symbol.find("g_skip_tile = 01 00 00 00 (4 B) before the first kernel in the timed launch"),
              std::string::npos)
        << by_symbol;
}

}  // namespace
