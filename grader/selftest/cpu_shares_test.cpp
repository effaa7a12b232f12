// Gradings side by side on several GPUs each keep to their own cores: the split must cover the cores given, never
// hand one core to two GPUs while there are enough, and the child must really be held to its share.
#include "child_process.h"
#include "cpu_shares.h"

#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using gpulab::runner::cpu_list_text;
using gpulab::runner::cpu_shares;
using CoreShares = std::vector<std::vector<int>>;

TEST(CpuShares, ConsecutiveCoresSplitEvenly) {
    EXPECT_EQ(cpu_shares({0, 1, 2, 3, 4, 5, 6, 7}, 2), (CoreShares{{0, 1, 2, 3}, {4, 5, 6, 7}}));
    EXPECT_EQ(cpu_shares({0, 1, 2, 3, 4}, 2), (CoreShares{{0, 1, 2}, {3, 4}}));
    EXPECT_EQ(cpu_shares({0, 1, 2, 3}, 1), (CoreShares{{0, 1, 2, 3}}));
}

TEST(CpuShares, OnlyTheCoresGivenInTheirOrder) {
    // A Slurm task or taskset may leave this process a scattered set of cores.
    EXPECT_EQ(cpu_shares({2, 3, 8, 9, 10, 11}, 3), (CoreShares{{2, 3}, {8, 9}, {10, 11}}));
}

TEST(CpuShares, FewerCoresThanGpusStillGivesEachACore) {
    EXPECT_EQ(cpu_shares({0, 1}, 4), (CoreShares{{0}, {1}, {0}, {1}}));
    EXPECT_EQ(cpu_shares({}, 2), (CoreShares{{}, {}}));
    EXPECT_TRUE(cpu_shares({0, 1}, 0).empty());
}

TEST(CpuShares, ListTextAsTasksetWritesIt) {
    EXPECT_EQ(cpu_list_text({0, 1, 2, 3}), "0-3");
    EXPECT_EQ(cpu_list_text({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
    EXPECT_EQ(cpu_list_text({5}), "5");
    EXPECT_EQ(cpu_list_text({}), "");
}

TEST(CpuShares, ChildKeepsToItsCores) {
    const std::vector<int> mine = gpulab::runner::allowed_cpus();
    // With one core the child's share is all it could have anyway: nothing would tell a pinned child from another.
    if (mine.size() < 2) GTEST_SKIP() << "this process may run on " << mine.size() << " core(s); the check needs two";
    const std::filesystem::path log = std::filesystem::temp_directory_path() / ("gpulab-cpu-share-" + std::to_string(::getpid()) + ".log");
    std::filesystem::remove(log);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    const gpulab::runner::ExitStatus status = gpulab::runner::run_child(
        {{"grep", "Cpus_allowed_list", "/proc/self/status"}, {}, log.string(), {}, {mine.back()}},
        [&] { return std::chrono::steady_clock::now() < deadline; });
    ASSERT_TRUE(status.exited && status.code == 0) << status.describe();
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    std::filesystem::remove(log);
    EXPECT_NE(text.str().find(":\t" + std::to_string(mine.back()) + "\n"), std::string::npos) << text.str();
}

TEST(CpuShares, CoresNoLongerThereStillRunTheChild) {
    // A core the machine does not have (taken away since the split, say): the child runs anyway, on the cores it
    // may use, and its log says why.
    const int missing = CPU_SETSIZE - 1;
    if (::sysconf(_SC_NPROCESSORS_CONF) > missing) GTEST_SKIP() << "this machine has core " << missing;
    const std::filesystem::path log = std::filesystem::temp_directory_path() / ("gpulab-cpu-gone-" + std::to_string(::getpid()) + ".log");
    std::filesystem::remove(log);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    const gpulab::runner::ExitStatus status = gpulab::runner::run_child(
        {{"true"}, {}, log.string(), {}, {missing}}, [&] { return std::chrono::steady_clock::now() < deadline; });
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    std::filesystem::remove(log);
    EXPECT_TRUE(status.exited && status.code == 0) << status.describe();
    EXPECT_NE(text.str().find("running on all cores"), std::string::npos) << text.str();
}

}  // namespace
