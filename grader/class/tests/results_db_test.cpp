// The results database: what is stored comes back whole, a re-run grades only what is missing or
// named, and no committed row is lost or half-written, even when a writer is killed with SIGKILL.
#include "results_db.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace gpulab::grade_class {

void PrintTo(const LabResult& r, std::ostream* out) {
    *out << r.student << " / " << r.lab << " [" << r.status << ", " << r.points << "/" << r.max_points
         << ", hash " << r.content_hash << ", grader " << r.grader_version << ", worker " << r.worker
         << ", finished " << r.finished_at << ", result " << r.result.dump().substr(0, 160) << "]";
}

}  // namespace gpulab::grade_class

namespace gpulab::grade_class::test {
namespace {

// The fixture takes the name ResultsDb, so that the tests read class/ResultsDb.*; the class under
// test is Db here.
using Db = grade_class::ResultsDb;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The labs a sample submission-lab is spread over, so that tests see several per student.
const std::vector<std::string> labs = {"01-heat-rod", "02-heat-2d", "03-gaussian-blur"};

// A complete result whose every field is derived from `n`, so a reader can tell a whole row from a
// mixed one. `padding` makes the result JSON large, so that a write takes long enough to be killed in.
LabResult sample(const std::string& student, const std::string& lab, int n, std::size_t padding = 0) {
    LabResult r;
    r.student = student;
    r.lab = lab;
    r.content_hash = "hash-" + std::to_string(n);
    r.status = n % 5 == 0 ? status::did_not_build : status::graded;
    r.points = n % 100;
    r.max_points = 100;
    r.result = {{"lab", lab},
                {"n", n},
                {"tests", {{{"name", "Step.MatchesOracle"}, {"points", n % 20}, {"verdict", "passed"}}}},
                {"message", std::string(padding, static_cast<char>('a' + n % 26))}};
    r.gpu_name = "NVIDIA H100 80GB HBM3";
    r.driver_version = "580." + std::to_string(n);
    r.grader_version = "commit-" + std::to_string(n);
    r.seed = std::numeric_limits<std::uint64_t>::max() - static_cast<std::uint64_t>(n);  // above INT64_MAX
    r.worker = "gpubox:gpu" + std::to_string(n % 4);
    r.build_seconds = n + 0.25;
    r.run_seconds = n + 0.5;
    r.finished_at = "";  // store() fills it in
    return r;
}

// Is `r` exactly sample(student, lab, n, padding) as store() wrote it (finished_at aside)?
bool is_whole_sample(LabResult r, int n, std::size_t padding) {
    LabResult expected = sample(r.student, r.lab, n, padding);
    r.finished_at = "";
    return r == expected;
}

std::string student_name(int i) {
    char name[32];
    std::snprintf(name, sizeof name, "student%03d", i);
    return name;
}

// The submissions an intake found: `students` students, each with every lab, hash "hash-<n>".
std::vector<FoundSubmission> class_of(int students) {
    std::vector<FoundSubmission> found;
    for (int i = 0; i < students; ++i)
        for (std::size_t l = 0; l < labs.size(); ++l) {
            const int n = i * static_cast<int>(labs.size()) + static_cast<int>(l);
            found.push_back({student_name(i), labs[l], "hash-" + std::to_string(n)});
        }
    return found;
}

int sample_number(const FoundSubmission& s) { return std::stoi(s.content_hash.substr(5)); }

// A raw SQLite connection, for what ResultsDb does not offer: holding a write lock, forging an old
// schema, checking the file's integrity.
struct RawConnection {
    explicit RawConnection(const fs::path& path) {
        if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) ADD_FAILURE() << "cannot open " << path;
    }
    ~RawConnection() { sqlite3_close(db); }
    void exec(const std::string& sql) {
        char* error = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
            ADD_FAILURE() << sql << ": " << (error ? error : "?");
            sqlite3_free(error);
        }
    }
    std::string text(const std::string& sql) {
        sqlite3_stmt* stmt = nullptr;
        std::string out;
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW)
            out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
        sqlite3_finalize(stmt);
        return out;
    }
    sqlite3* db = nullptr;
};

// Runs `body` in a child process (fork), which exits 0 when it returns and 1 when it throws.
pid_t spawn(const std::function<void()>& body) {
    const pid_t pid = fork();
    if (pid == 0) {
        int code = 0;
        try {
            body();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "child %d: %s\n", getpid(), e.what());
            code = 1;
        }
        _exit(code);  // never back into GoogleTest's main in the child
    }
    return pid;
}

int wait_for(pid_t pid) {
    int wstatus = 0;
    waitpid(pid, &wstatus, 0);
    return wstatus;
}

class ResultsDb : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "gpulab-results-db-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        dir = pattern;
        path = dir / "results.sqlite";
    }
    void TearDown() override { fs::remove_all(dir); }

    fs::path dir;
    fs::path path;
};

TEST_F(ResultsDb, StoresAndReadsBack) {
    Db db(path);
    const LabResult bob = sample("bob", "02-heat-2d", 7);
    LabResult alice = sample("alice", "01-heat-rod", 3);
    alice.finished_at = "2025-01-31T14:05:09.123Z";
    db.store(bob);
    db.store(alice);

    const auto read = db.result("alice", "01-heat-rod");
    ASSERT_TRUE(read);
    EXPECT_EQ(*read, alice);
    EXPECT_EQ(read->seed, std::numeric_limits<std::uint64_t>::max() - 3) << "a seed above INT64_MAX comes back whole";
    EXPECT_FALSE(db.result("alice", "02-heat-2d"));

    const auto all = db.all_results();
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].student, "alice") << "ordered by student";
    EXPECT_TRUE(is_whole_sample(all[1], 7, 0));
    EXPECT_EQ(all[1].finished_at.size(), std::string("2025-01-31T14:05:09.123Z").size())
        << "store() fills in when it finished: " << all[1].finished_at;

    LabResult bad = sample("carol", "01-heat-rod", 1);
    bad.finished_at = "31/01/2025";
    EXPECT_THROW(db.store(bad), std::runtime_error) << "a time that does not sort as text is refused";
}

TEST_F(ResultsDb, AllResultsAreOrderedByStudentThenLab) {
    Db db(path);
    db.store(sample("bob", "02-heat-2d", 1));
    db.store(sample("alice", "02-heat-2d", 2));
    db.store(sample("bob", "01-heat-rod", 3));
    db.store(sample("alice", "01-heat-rod", 4));
    std::vector<std::string> order;
    for (const LabResult& r : db.all_results()) order.push_back(r.student + " " + r.lab);
    EXPECT_EQ(order, (std::vector<std::string>{"alice 01-heat-rod", "alice 02-heat-2d", "bob 01-heat-rod",
                                               "bob 02-heat-2d"}));
}

TEST_F(ResultsDb, AResultIsAllThereOrAbsent) {
    Db db(path, 200ms);
    LabResult first = sample("alice", "01-heat-rod", 1);
    first.finished_at = "2025-01-31T14:05:09.123Z";
    db.store(first);

    // Another writer's transaction that has changed half a row and not committed: a reader sees the
    // old result whole.
    RawConnection other(path);
    other.exec("BEGIN IMMEDIATE");
    other.exec("UPDATE results SET status = 'half', points = 99 WHERE student = 'alice'");
    EXPECT_EQ(*db.result("alice", "01-heat-rod"), first);

    // A store that cannot get the write lock within the busy timeout fails, says why, and writes
    // nothing: neither the new row nor the replacement.
    try {
        db.store(sample("bob", "01-heat-rod", 2));
        ADD_FAILURE() << "a store past the busy timeout must throw";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("locked"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("bob / 01-heat-rod"), std::string::npos) << e.what();
    }
    EXPECT_THROW(db.store(sample("alice", "01-heat-rod", 3)), std::runtime_error);
    other.exec("ROLLBACK");
    EXPECT_FALSE(db.result("bob", "01-heat-rod"));
    EXPECT_EQ(*db.result("alice", "01-heat-rod"), first);

    // A result the database refuses leaves the earlier one as it was.
    LabResult no_status = sample("alice", "01-heat-rod", 4);
    no_status.status = "";
    EXPECT_THROW(db.store(no_status), std::runtime_error);
    EXPECT_EQ(*db.result("alice", "01-heat-rod"), first);

    // And a replacement replaces every field.
    const LabResult second = sample("alice", "01-heat-rod", 5);
    db.store(second);
    EXPECT_TRUE(is_whole_sample(*db.result("alice", "01-heat-rod"), 5, 0));
}

TEST_F(ResultsDb, ReopeningKeepsEverything) {
    std::vector<LabResult> stored;
    {
        Db db(path);
        for (int i = 0; i < 4; ++i) {
            stored.push_back(sample(student_name(i), labs[i % labs.size()], i));
            db.store(stored.back());
        }
        db.set_setting("seed", "12345");
        db.set_setting("mode", "cpu");
        db.set_setting("mode", "gpu");
        db.mark_for_regrade({.student = student_name(0), .lab = std::nullopt});
    }
    Db reopened(path);
    const auto all = reopened.all_results();
    ASSERT_EQ(all.size(), stored.size());
    for (std::size_t i = 0; i < all.size(); ++i) EXPECT_TRUE(is_whole_sample(all[i], static_cast<int>(i), 0));
    EXPECT_EQ(reopened.settings(), (std::map<std::string, std::string>{{"mode", "gpu"}, {"seed", "12345"}}));
    EXPECT_EQ(reopened.setting("mode"), "gpu");
    EXPECT_FALSE(reopened.setting("folder"));
    const auto work = reopened.work_list({{student_name(0), labs[0], "hash-0"}}, {.grader_version = "commit-0"});
    ASSERT_EQ(work.size(), 1u) << "a regrade request survives reopening";
    EXPECT_EQ(work[0].reason, WorkReason::regrade_requested);
}

TEST_F(ResultsDb, WorkListHoldsOnlyWhatIsMissing) {
    Db db(path);
    const auto found = class_of(3);  // 9 submission-labs
    for (std::size_t k = 0; k < found.size(); k += 2) {
        LabResult r = sample(found[k].student, found[k].lab, sample_number(found[k]));
        r.grader_version = "v1";
        db.store(r);
    }
    const auto work = db.work_list(found, {.grader_version = "v1"});
    ASSERT_EQ(work.size(), 4u);
    for (std::size_t w = 0; w < work.size(); ++w) {
        EXPECT_EQ(work[w].submission.content_hash, found[2 * w + 1].content_hash) << "in the order found";
        EXPECT_EQ(work[w].reason, WorkReason::not_graded);
    }
    for (const WorkItem& item : work) db.store(sample(item.submission.student, item.submission.lab, 0));
    EXPECT_EQ(db.work_list(found, {.grader_version = "v1"}).size(), 4u)
        << "what was stored with another hash and grader is graded again";
}

TEST_F(ResultsDb, UnchangedHashIsNotRegradedAChangedOneIs) {
    Db db(path);
    LabResult r = sample("alice", "01-heat-rod", 1);
    r.grader_version = "v1";
    db.store(r);
    EXPECT_TRUE(db.work_list({{"alice", "01-heat-rod", "hash-1"}}, {.grader_version = "v1"}).empty());
    const auto work = db.work_list({{"alice", "01-heat-rod", "hash-2"}}, {.grader_version = "v1"});
    ASSERT_EQ(work.size(), 1u);
    EXPECT_EQ(work[0].reason, WorkReason::files_changed);
    EXPECT_EQ(work[0].submission.content_hash, "hash-2");
    EXPECT_EQ(describe(work[0].reason), "files changed since it was graded");
}

TEST_F(ResultsDb, AnotherGraderVersionRegradesOrKeepsAsAsked) {
    Db db(path);
    LabResult r = sample("alice", "01-heat-rod", 1);
    r.grader_version = "v1";
    db.store(r);
    const std::vector<FoundSubmission> found = {{"alice", "01-heat-rod", "hash-1"}};
    const auto work = db.work_list(found, {.grader_version = "v2"});
    ASSERT_EQ(work.size(), 1u) << "the default regrades";
    EXPECT_EQ(work[0].reason, WorkReason::grader_changed);
    EXPECT_TRUE(
        db.work_list(found, {.grader_version = "v2", .on_grader_change = WorkListOptions::OnGraderChange::keep})
            .empty());
}

TEST_F(ResultsDb, AGraderErrorIsTriedAgainAStudentsFailureIsNot) {
    Db db(path);
    LabResult failed = sample("alice", "01-heat-rod", 1);
    failed.status = status::grader_error;
    failed.grader_version = "v1";
    db.store(failed);
    LabResult crashed = sample("bob", "01-heat-rod", 2);
    crashed.status = status::crashed;
    crashed.grader_version = "v1";
    db.store(crashed);
    const auto work = db.work_list({{"alice", "01-heat-rod", "hash-1"}, {"bob", "01-heat-rod", "hash-2"}},
                                   {.grader_version = "v1"});
    ASSERT_EQ(work.size(), 1u);
    EXPECT_EQ(work[0].submission.student, "alice");
    EXPECT_EQ(work[0].reason, WorkReason::retry);
}

TEST_F(ResultsDb, TheSameSubmissionTwiceIsRefused) {
    Db db(path);
    try {
        db.work_list({{"alice", "01-heat-rod", "a"}, {"alice", "01-heat-rod", "b"}}, {.grader_version = "v1"});
        ADD_FAILURE() << "two submissions of one student-lab must be refused";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("alice / 01-heat-rod twice"), std::string::npos) << e.what();
    }
}

// The instructor names what to grade again: one student, one lab, both, or everything.
struct NamedCase {
    const char* name;
    Selection selection;
    int expected;  // of the 3 students x 3 labs
};
void PrintTo(const NamedCase& c, std::ostream* out) { *out << c.name; }

class ResultsDbNamed : public ResultsDb, public ::testing::WithParamInterface<NamedCase> {
protected:
    // A class graded in full with grader "v1" (student i, lab l has sample number 3i + l).
    std::vector<FoundSubmission> grade_class(Db& db) {
        const auto found = class_of(3);
        for (const FoundSubmission& s : found) {
            LabResult r = sample(s.student, s.lab, sample_number(s));
            r.grader_version = "v1";
            db.store(r);
        }
        return found;
    }
    static bool named(const FoundSubmission& s, const Selection& selection) {
        return (!selection.student || s.student == *selection.student) && (!selection.lab || s.lab == *selection.lab);
    }
};

TEST_P(ResultsDbNamed, MarkKeepsTheOldGradeUntilTheNewOneReplacesIt) {
    Db db(path);
    const auto found = grade_class(db);
    const Selection& selection = GetParam().selection;
    EXPECT_EQ(db.mark_for_regrade(selection), GetParam().expected);

    const auto work = db.work_list(found, {.grader_version = "v1"});
    ASSERT_EQ(static_cast<int>(work.size()), GetParam().expected);
    for (const WorkItem& item : work) {
        EXPECT_TRUE(named(item.submission, selection)) << item.submission.student << " " << item.submission.lab;
        EXPECT_EQ(item.reason, WorkReason::regrade_requested);
    }
    EXPECT_EQ(db.all_results().size(), found.size()) << "marked results keep their old grades meanwhile";

    // A batch interrupted after regrading the first one resumes with the rest only.
    db.store(sample(work[0].submission.student, work[0].submission.lab, sample_number(work[0].submission)));
    const auto resumed = db.work_list(found, {.grader_version = "v2", .on_grader_change =
                                                                          WorkListOptions::OnGraderChange::keep});
    EXPECT_EQ(static_cast<int>(resumed.size()), GetParam().expected - 1);
}

TEST_P(ResultsDbNamed, ForgetDeletesOnlyTheNamed) {
    Db db(path);
    const auto found = grade_class(db);
    const Selection& selection = GetParam().selection;
    EXPECT_EQ(db.forget(selection), GetParam().expected);
    for (const FoundSubmission& s : found)
        EXPECT_EQ(db.result(s.student, s.lab).has_value(), !named(s, selection)) << s.student << " " << s.lab;
    const auto work = db.work_list(found, {.grader_version = "v1"});
    EXPECT_EQ(static_cast<int>(work.size()), GetParam().expected);
    for (const WorkItem& item : work) EXPECT_EQ(item.reason, WorkReason::not_graded);
}

INSTANTIATE_TEST_SUITE_P(
    Selections, ResultsDbNamed,
    ::testing::Values(NamedCase{"OneStudent", {.student = "student001", .lab = std::nullopt}, 3},
                      NamedCase{"OneLab", {.student = std::nullopt, .lab = "02-heat-2d"}, 3},
                      NamedCase{"OneStudentOneLab", {.student = "student002", .lab = "03-gaussian-blur"}, 1},
                      NamedCase{"Everything", {}, 9}),
    [](const ::testing::TestParamInfo<NamedCase>& info) { return std::string(info.param.name); });

TEST_F(ResultsDb, AnotherSchemaVersionIsAClearError) {
    { Db db(path); }
    RawConnection(path).exec("PRAGMA user_version = 7");
    try {
        Db db(path);
        ADD_FAILURE() << "a database of schema version 7 must be refused";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("schema version 7"), std::string::npos) << what;
        EXPECT_NE(what.find("reads version 1"), std::string::npos) << what;
        EXPECT_NE(what.find(path.string()), std::string::npos) << what;
    }
    Db fresh(dir / "fresh.sqlite");
    EXPECT_THROW(fresh.merge_from(path), std::runtime_error) << "a merge checks the other's version too";
}

TEST_F(ResultsDb, AFileThatIsNoResultsDatabaseIsRefused) {
    std::ofstream(dir / "notes.txt") << "these are not the results you are looking for\n";
    try {
        Db db(dir / "notes.txt");
        ADD_FAILURE() << "a text file must be refused";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("not an SQLite database"), std::string::npos) << e.what();
    }
    RawConnection(dir / "other.sqlite").exec("CREATE TABLE grades (name TEXT)");
    try {
        Db db(dir / "other.sqlite");
        ADD_FAILURE() << "another program's database must be refused";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("not a gpulab results database"), std::string::npos) << e.what();
    }
    EXPECT_EQ(RawConnection(dir / "other.sqlite").text("SELECT count(*) FROM sqlite_master"), "1")
        << "and left as it was";
}

// A child grades the work list in a loop, like a batch, and is killed with SIGKILL part way (while
// it writes, most of the time: each result carries 64 KiB). Several rounds resume the same database.
// No connection is open in this process across a fork: SQLite's per-process lock bookkeeping must
// not be shared with the child.
TEST_F(ResultsDb, AWriterKilledMidBatchLeavesOnlyWholeRows) {
    constexpr std::size_t padding = 64 * 1024;
    const auto found = class_of(400);  // 1200 submission-labs: a loaded machine still kills it part way
    { Db create(path); }
    auto grade_batch = [&](const std::string& worker) {
        Db db(path);
        for (const WorkItem& item : db.work_list(found, {.grader_version = "v1"})) {
            LabResult r = sample(item.submission.student, item.submission.lab, sample_number(item.submission), padding);
            r.grader_version = "v1";  // so that a finished result is not on the next round's list
            r.worker = worker;
            db.store(r);
        }
    };
    auto count_rows = [&] { return std::stoul(RawConnection(path).text("SELECT count(*) FROM results")); };

    std::vector<std::size_t> after_round;
    for (int round = 0; round < 3; ++round) {
        const std::size_t before = count_rows();
        const pid_t child = spawn([&] { grade_batch("round " + std::to_string(round)); });
        {
            // Kill once the child has stored some results this round, then a moment later, mid-loop.
            RawConnection watcher(path);
            const auto deadline = std::chrono::steady_clock::now() + 60s;
            while (std::stoul(watcher.text("SELECT count(*) FROM results")) < before + 20 &&
                   std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(2ms);
            std::this_thread::sleep_for(std::chrono::milliseconds(3 + 7 * round));
            ASSERT_EQ(kill(child, SIGKILL), 0);
        }
        const int wstatus = wait_for(child);
        ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL) << "the child finished before it was killed";
        after_round.push_back(count_rows());
        ASSERT_GT(after_round.back(), before) << "round " << round << " stored nothing";
        ASSERT_LT(after_round.back(), found.size()) << "round " << round << " finished the batch";
    }

    // The file is sound and every row is a whole result; the rows of each round are still that
    // round's (nothing graded twice).
    EXPECT_EQ(RawConnection(path).text("PRAGMA integrity_check"), "ok");
    {
        Db reopened(path);
        const auto all = reopened.all_results();
        ASSERT_EQ(all.size(), after_round.back());
        std::map<std::string, std::size_t> per_worker;
        for (const LabResult& r : all) {
            LabResult expected = sample(r.student, r.lab, std::stoi(r.content_hash.substr(5)), padding);
            expected.grader_version = "v1";
            expected.worker = r.worker;
            expected.finished_at = r.finished_at;
            EXPECT_EQ(r, expected);
            ++per_worker[r.worker];
        }
        EXPECT_EQ(per_worker["round 0"], after_round[0]);
        EXPECT_EQ(per_worker["round 1"], after_round[1] - after_round[0]);
        EXPECT_EQ(per_worker["round 2"], after_round[2] - after_round[1]);
        EXPECT_EQ(reopened.work_list(found, {.grader_version = "v1"}).size(), found.size() - all.size());
    }

    // The resumed batch grades exactly what is missing, and then nothing is left.
    const pid_t last = spawn([&] { grade_batch("last"); });
    EXPECT_EQ(wait_for(last), 0);
    Db finished(path);
    const auto all = finished.all_results();
    EXPECT_EQ(all.size(), found.size());
    EXPECT_EQ(std::count_if(all.begin(), all.end(), [](const LabResult& r) { return r.worker == "last"; }),
              static_cast<std::ptrdiff_t>(found.size() - after_round.back()));
    EXPECT_TRUE(finished.work_list(found, {.grader_version = "v1"}).empty());
}

TEST_F(ResultsDb, TwoProcessesWriteAtOnce) {
    { Db create(path); }
    constexpr int per_writer = 150;
    // Two writers, like the build workers and a GPU worker, with a short busy timeout so that a
    // missing one would show; each opens its own connection in its own process.
    auto writer = [&](const std::string& lab) {
        return spawn([&, lab] {
            Db db(path, 5s);
            for (int i = 0; i < per_writer; ++i) db.store(sample(student_name(i), lab, i));
        });
    };
    const pid_t first = writer(labs[0]);
    const pid_t second = writer(labs[1]);
    EXPECT_EQ(wait_for(first), 0) << "the first writer failed (see its message above)";
    EXPECT_EQ(wait_for(second), 0) << "the second writer failed (see its message above)";
    Db db(path);
    const auto all = db.all_results();
    ASSERT_EQ(all.size(), 2u * per_writer);
    for (const LabResult& r : all) EXPECT_TRUE(is_whole_sample(r, std::stoi(r.student.substr(7)), 0)) << r.student;
}

TEST_F(ResultsDb, MergeTakesWhatIsMissingOrNewer) {
    Db ours(dir / "ours.sqlite");
    Db theirs(dir / "theirs.sqlite");
    auto at = [](LabResult r, const char* time) {
        r.finished_at = time;
        return r;
    };
    ours.store(at(sample("alice", "01-heat-rod", 1), "2025-01-01T10:00:00.000Z"));   // theirs is newer
    ours.store(at(sample("alice", "02-heat-2d", 2), "2025-01-02T10:00:00.000Z"));    // ours is newer
    ours.store(at(sample("bob", "01-heat-rod", 3), "2025-01-01T10:00:00.000Z"));     // only ours
    theirs.store(at(sample("alice", "01-heat-rod", 11), "2025-01-01T12:00:00.000Z"));
    theirs.store(at(sample("alice", "02-heat-2d", 12), "2025-01-01T12:00:00.000Z"));
    theirs.store(at(sample("carol", "03-gaussian-blur", 13), "2025-01-01T12:00:00.000Z"));  // only theirs
    theirs.store(at(sample("dave", "01-heat-rod", 14), "2025-01-01T12:00:00.000Z"));        // only theirs
    theirs.mark_for_regrade({.student = "dave", .lab = std::nullopt});

    EXPECT_EQ(ours.merge_from(dir / "theirs.sqlite"), 3);
    EXPECT_TRUE(is_whole_sample(*ours.result("alice", "01-heat-rod"), 11, 0));
    EXPECT_TRUE(is_whole_sample(*ours.result("alice", "02-heat-2d"), 2, 0));
    EXPECT_TRUE(is_whole_sample(*ours.result("bob", "01-heat-rod"), 3, 0));
    EXPECT_TRUE(is_whole_sample(*ours.result("carol", "03-gaussian-blur"), 13, 0));
    EXPECT_EQ(*ours.result("carol", "03-gaussian-blur"), *theirs.result("carol", "03-gaussian-blur"))
        << "finished_at is taken as it was";
    const auto work = ours.work_list({{"dave", "01-heat-rod", "hash-14"}}, {.grader_version = "commit-14"});
    ASSERT_EQ(work.size(), 1u) << "a regrade request comes along";
    EXPECT_EQ(work[0].reason, WorkReason::regrade_requested);

    EXPECT_EQ(ours.merge_from(dir / "theirs.sqlite"), 0) << "merging twice takes nothing more";
    EXPECT_EQ(theirs.all_results().size(), 4u) << "the other database is only read";
    EXPECT_THROW(ours.merge_from(dir / "missing.sqlite"), std::runtime_error);
    EXPECT_FALSE(fs::exists(dir / "missing.sqlite"));
}

}  // namespace
}  // namespace gpulab::grade_class::test
