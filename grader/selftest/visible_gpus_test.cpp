// A class graded on a shared machine must stay on the GPUs the instructor was given: each grading's child gets
// its GPU named as the instructor's own CUDA_VISIBLE_DEVICES names it, not the driver's renumbered index.
#include "visible_gpus.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace {

using gpulab::runner::visible_gpu_ids;
using GpuIds = std::vector<std::string>;

// Sets CUDA_VISIBLE_DEVICES (or unsets it, for nullopt) for one test and puts back what was there.
class VisibleDevices {
public:
    explicit VisibleDevices(std::optional<std::string> value) {
        if (const char* before = std::getenv(kName)) before_ = before;
        if (value) ::setenv(kName, value->c_str(), 1);
        else ::unsetenv(kName);
    }
    ~VisibleDevices() {
        if (before_) ::setenv(kName, before_->c_str(), 1);
        else ::unsetenv(kName);
    }

private:
    static constexpr const char* kName = "CUDA_VISIBLE_DEVICES";
    std::optional<std::string> before_;
};

TEST(VisibleGpuIds, WithoutTheVariableTheDriversNumbers) {
    VisibleDevices unset(std::nullopt);
    EXPECT_EQ(visible_gpu_ids(2), (GpuIds{"0", "1"}));
    EXPECT_EQ(visible_gpu_ids(0), GpuIds{});
    VisibleDevices empty(std::string(""));
    EXPECT_EQ(visible_gpu_ids(3), (GpuIds{"0", "1", "2"}));
}

TEST(VisibleGpuIds, AGivenListIsPassedOnAsGiven) {
    VisibleDevices two_of_eight(std::string("2,3"));
    EXPECT_EQ(visible_gpu_ids(2), (GpuIds{"2", "3"}));
    VisibleDevices uuids(std::string("GPU-8a1f,MIG-5c2e"));
    EXPECT_EQ(visible_gpu_ids(2), (GpuIds{"GPU-8a1f", "MIG-5c2e"}));
}

TEST(VisibleGpuIds, OnlyTheEntriesTheDriverCounted) {
    // The driver stops at an invalid entry: "1,7,bogus,0" on a machine of two GPUs shows one (GPU 1).
    VisibleDevices list(std::string("1,7,bogus,0"));
    EXPECT_EQ(visible_gpu_ids(1), (GpuIds{"1"}));
    EXPECT_EQ(visible_gpu_ids(0), GpuIds{});
}

}  // namespace
