// Reading what Slurm's commands print, as Slurm 22.05 prints it: each array task by its index, its state, its exit
// code as sacct writes it. The squeue and sacct -c lines are copied from the test cluster's (class_slurm_test.py);
// the sacct lines (slurmdbd, which that cluster lacks) follow sacct's documented -P format.
#include "slurm_commands.h"

#include <gtest/gtest.h>

#include <ostream>

namespace gpulab::grade_class {

void PrintTo(const TaskState& t, std::ostream* out) {
    *out << t.task << "|" << t.job_id << "|" << t.state << "|" << t.exit_code << "|" << t.reason << "|" << t.node << "|" << t.elapsed;
}

}  // namespace gpulab::grade_class

namespace gpulab::grade_class::test {
namespace {

TEST(SlurmCommands, SqueueGivesEachArrayTaskWithItsExitCodeAsSacctWritesIt) {
    const auto tasks = parse_squeue("1|3|CANCELLED|Resources|15|vm|0:01|\n"
                                    "4|1|COMPLETED|None|0|vm|0:08|\n"
                                    "3|5|FAILED|NonZeroExitCode|1280|vm|0:08|\n"
                                    "2|4|PENDING|Resources|0||0:00|\n");
    ASSERT_EQ(tasks.size(), 4u);
    // Killed by SIGTERM: exit code 0, signal 15; exit(5): 5:0. A pending task has no node yet.
    EXPECT_EQ(tasks.at(1), (TaskState{1, "3", "CANCELLED", "0:15", "Resources", "vm", "0:01"}));
    EXPECT_EQ(tasks.at(3), (TaskState{3, "5", "FAILED", "5:0", "NonZeroExitCode", "vm", "0:08"}));
    EXPECT_EQ(tasks.at(2), (TaskState{2, "4", "PENDING", "0:0", "Resources", "", "0:00"}));
    EXPECT_TRUE(is_live(tasks.at(2).state));
    EXPECT_TRUE(is_failure(tasks.at(1).state));
    EXPECT_FALSE(is_failure(tasks.at(4).state));
}

TEST(SlurmCommands, SacctGivesArrayTasksAndLeavesOutThePendingRemainder) {
    // "CANCELLED by 0" is CANCELLED; the array's pending remainder "12_[3-7]" is no task yet.
    const std::map<int, TaskState> expected = {
        {0, {0, "13", "COMPLETED", "0:0", "None", "gpu01", "00:04:10"}},
        {1, {1, "14", "CANCELLED", "0:15", "None", "gpu02", "00:00:09"}},
        {2, {2, "15", "OUT_OF_MEMORY", "0:125", "OutOfMemory", "gpu01", "00:01:00"}}};
    EXPECT_EQ(parse_sacct("12_0|13|COMPLETED|0:0|None|gpu01|00:04:10\n"
                          "12_1|14|CANCELLED by 0|0:15|None|gpu02|00:00:09\n"
                          "12_2|15|OUT_OF_MEMORY|0:125|OutOfMemory|gpu01|00:01:00\n"
                          "12_[3-7]|12|PENDING|0:0|Priority|None assigned|00:00:00\n"),
              expected);
}

TEST(SlurmCommands, TheJobCompletionLogIsReadByTheTasksOwnJobIds) {
    // sacct -c knows no array indices: tasks 0 and 1 of job 1 ran as jobs 2 and 3; job 9 is someone else's.
    const std::string out = "2|COMPLETED|0:0|vm|00:00:21\n3|CANCELLED|0:0|vm|00:00:05\n9|FAILED|1:0|vm|00:00:01\n";
    const auto tasks = parse_sacct_completion(out, {{"2", 0}, {"3", 1}});
    ASSERT_EQ(tasks.size(), 2u);
    EXPECT_EQ(tasks.at(1).state, "CANCELLED");
    EXPECT_EQ(tasks.at(0).elapsed, "00:00:21");
}

TEST(SlurmCommands, RunCommandSaysWhenAProgramIsMissing) {
    const CommandResult missing = run_command({"gpulab-no-such-program"});
    EXPECT_FALSE(missing.started);
    const CommandResult echo = run_command({"sh", "-c", "echo out; echo err >&2; exit 3"});
    EXPECT_TRUE(echo.started);
    EXPECT_EQ(echo.status, 3);
    EXPECT_EQ(echo.out, "out\n");
    EXPECT_EQ(echo.err, "err\n");
}

}  // namespace
}  // namespace gpulab::grade_class::test
