// Result files, what a Slurm array task writes instead of the database: a file holds the whole row, is never
// seen half written, and importing it is idempotent (a result imported twice counts once; a result for files
// or a grader the class no longer has is left alone; a newer grading in the database is never replaced).
#include "result_files.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

namespace gpulab::grade_class::test {
namespace {

namespace fs = std::filesystem;

LabResult sample(const std::string& student, const std::string& hash, const std::string& finished_at) {
    LabResult r;
    r.student = student;
    r.lab = "01-heat-rod";
    r.content_hash = hash;
    r.status = status::graded;
    r.points = 85;
    r.max_points = 100;
    r.result = {{"lab", r.lab}, {"tests", {{{"name", "Step.MatchesOracle"}, {"verdict", "passed"}}}}};
    r.gpu_name = "NVIDIA H100 80GB HBM3";
    r.driver_version = "13000";
    r.grader_version = "commit-a";
    r.seed = 18446744073709551615ull;  // the largest seed survives JSON
    r.worker = "node7:slurm12_3:w0";
    r.build_seconds = 1.5;
    r.run_seconds = 2.25;
    r.finished_at = finished_at;
    return r;
}

class ResultFiles : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::temp_directory_path() / ("gpulab-result-files-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir);
        fs::create_directories(dir / "results");
    }
    void TearDown() override { fs::remove_all(dir); }
    fs::path dir;
};

TEST_F(ResultFiles, HoldTheWholeRowAndLeaveNoTemporaryFile) {
    const LabResult r = sample("alice", "hash-1", "2025-01-31T14:05:09.123Z");
    const fs::path path = write_result_file(dir / "results", r);
    EXPECT_EQ(path, result_file_path(dir / "results", "alice", "01-heat-rod"));
    EXPECT_EQ(read_result_file(path), r);
    int files = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir / "results")) ++files;
    EXPECT_EQ(files, 1);
}

TEST_F(ResultFiles, FillInWhenTheyFinished) {
    const LabResult back = read_result_file(write_result_file(dir / "results", sample("alice", "hash-1", "")));
    EXPECT_EQ(back.finished_at.size(), std::string("2025-01-31T14:05:09.123Z").size());
    EXPECT_EQ(back.finished_at.back(), 'Z');
}

TEST_F(ResultFiles, ThatAreNotWholeAreNamedAndLeftOut) {
    std::ofstream(dir / "results" / "bob.01-heat-rod.json") << "{\"student\": \"bob\"}\n";
    ResultsDb db(dir / "db.sqlite");
    const ImportCount count = import_result_files({dir / "results"}, db, {{"bob", "01-heat-rod", "hash-1"}}, "commit-a");
    ASSERT_EQ(count.problems.size(), 1u);
    EXPECT_NE(count.problems[0].find("bob.01-heat-rod.json"), std::string::npos) << count.problems[0];
    EXPECT_TRUE(count.imported.empty());
}

TEST_F(ResultFiles, ImportedTwiceCountOnce) {
    const LabResult r = sample("alice", "hash-1", "2025-01-31T14:05:09.123Z");
    const fs::path path = write_result_file(dir / "results", r);
    fs::copy_file(path, dir / "results" / "copy.json");  // the same result under another name
    ResultsDb db(dir / "db.sqlite");
    const std::vector<FoundSubmission> found = {{"alice", "01-heat-rod", "hash-1"}};
    const ImportCount first = import_result_files({dir / "results"}, db, found, "commit-a");
    EXPECT_EQ(first.imported.size(), 1u);
    EXPECT_EQ(first.already, 1);
    const ImportCount again = import_result_files({dir / "results"}, db, found, "commit-a");
    EXPECT_TRUE(again.imported.empty());
    EXPECT_EQ(again.already, 2);
    EXPECT_EQ(db.all_results().size(), 1u);
    EXPECT_EQ(*db.result("alice", "01-heat-rod"), r);
}

TEST_F(ResultFiles, ForOtherFilesOrAnotherGraderAreLeftAlone) {
    write_result_file(dir / "results", sample("alice", "hash-old", "2025-01-31T14:05:09.123Z"));
    write_result_file(dir / "results", sample("bob", "hash-2", "2025-01-31T14:05:09.123Z"));
    ResultsDb db(dir / "db.sqlite");
    // alice handed in other files since; bob's result is from another grader version; carol is not in the class.
    const ImportCount count = import_result_files({dir / "results"}, db, {{"alice", "01-heat-rod", "hash-new"}}, "commit-a");
    EXPECT_EQ(count.stale, 2);
    const ImportCount other = import_result_files({dir / "results"}, db, {{"bob", "01-heat-rod", "hash-2"}}, "commit-b");
    EXPECT_EQ(other.stale, 2);
    EXPECT_TRUE(db.all_results().empty());
}

TEST_F(ResultFiles, NeverReplaceANewerGradingOfTheSameFiles) {
    ResultsDb db(dir / "db.sqlite");
    const LabResult newer = sample("alice", "hash-1", "2025-02-01T10:00:00.000Z");
    db.store(newer);
    write_result_file(dir / "results", sample("alice", "hash-1", "2025-01-31T14:05:09.123Z"));
    const ImportCount count = import_result_files({dir / "results"}, db, {{"alice", "01-heat-rod", "hash-1"}}, "commit-a");
    EXPECT_EQ(count.already, 1);
    EXPECT_EQ(*db.result("alice", "01-heat-rod"), newer);
    // A regrade of the same files, finished later, does replace it.
    LabResult regraded = sample("alice", "hash-1", "2025-02-02T10:00:00.000Z");
    regraded.points = 90;
    write_result_file(dir / "results", regraded);
    EXPECT_EQ(import_result_files({dir / "results"}, db, {{"alice", "01-heat-rod", "hash-1"}}, "commit-a").imported.size(), 1u);
    EXPECT_EQ(db.result("alice", "01-heat-rod")->points, 90);
}

}  // namespace
}  // namespace gpulab::grade_class::test
