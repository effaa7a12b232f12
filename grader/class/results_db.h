// The results of grading a class, kept in an SQLite database so that an interrupted batch (Ctrl-C,
// kill -9, a reboot) resumes where it stopped and no finished result is ever lost.
//
// The unit of work is one submission-lab (student x lab); its key is (student, lab), with no
// autoincrement id, so databases filled on several machines merge row by row (merge_from).
// Each finished submission-lab is written in one transaction: a reader, a resumed batch or a merge
// sees a result whole or not at all. Several processes (build workers, one worker per GPU) may write
// to one database at once: a writer waits for the others (busy_timeout) instead of failing.
#pragma once

#include "lab_status.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

struct sqlite3;

namespace gpulab::grade_class {

// What became of a submission-lab. The database keeps any non-empty status, so a new outcome
// needs no schema change; these are the ones the batch writes and the reports know.
namespace status = feedback::status;  // lab_status.h

// One finished submission-lab: everything needed to show the grade and to reproduce it.
struct LabResult {
    std::string student;
    std::string lab;
    std::string content_hash;    // SHA-256 hex of the submission-lab's files (from intake)
    std::string status;          // one of status::*, or another non-empty word
    double points = 0;
    double max_points = 0;
    nlohmann::json result;       // gpulab-grade's entry for this lab in summary.json (tests, verdicts, messages)
    std::string gpu_name;        // empty where no GPU was used (CPU mode, did not build)
    std::string driver_version;
    std::string grader_version;  // the git commit of the instructor's tree
    std::uint64_t seed = 0;
    std::string worker;          // which machine / worker graded it, e.g. "gpubox:gpu1"
    double build_seconds = 0;
    double run_seconds = 0;
    std::string finished_at;     // UTC, ISO 8601 with milliseconds ("2025-01-31T14:05:09.123Z");
                                 // store() fills it in when empty

    friend bool operator==(const LabResult&, const LabResult&) = default;
};

// A submission-lab the intake found in the submissions folder.
struct FoundSubmission {
    std::string student;
    std::string lab;
    std::string content_hash;
};

// Why a submission-lab is on the work list, for the progress line and the log.
enum class WorkReason {
    not_graded,         // no result yet
    files_changed,      // its content hash differs from the graded one
    grader_changed,     // graded by another grader version (WorkListOptions::on_grader_change)
    retry,              // its last status is one of WorkListOptions::retry_statuses
    regrade_requested,  // the instructor named it (mark_for_regrade)
};
std::string describe(WorkReason reason);

struct WorkItem {
    FoundSubmission submission;
    WorkReason reason;
};

struct WorkListOptions {
    std::string grader_version;  // the instructor's tree now
    // A result graded by another grader version: grade it again, or keep it (a fix to one lab's
    // grader need not regrade 500 students' other labs).
    enum class OnGraderChange { regrade, keep } on_grader_change = OnGraderChange::regrade;
    // Statuses that say the grading failed rather than the student (a GPU that fell off the bus):
    // such a result is tried again on the next run.
    std::set<std::string> retry_statuses = {status::grader_error};
};

// Which results an instructor's command names: a student, a lab, both, or (neither) everything.
struct Selection {
    std::optional<std::string> student;
    std::optional<std::string> lab;
};

class ResultsDb {
public:
    // The schema this code reads and writes (PRAGMA user_version of the database file).
    static constexpr int schema_version = 1;

    // Opens the database, creating it (and its folder) if missing. Throws with the path and what to
    // do when it is not a gpulab results database or was written with another schema version.
    explicit ResultsDb(const std::filesystem::path& path,
                       std::chrono::milliseconds busy_timeout = std::chrono::seconds(60));
    ~ResultsDb();
    ResultsDb(const ResultsDb&) = delete;
    ResultsDb& operator=(const ResultsDb&) = delete;

    const std::filesystem::path& path() const { return path_; }

    // Stores one finished submission-lab in one transaction, replacing any earlier result for the same
    // (student, lab) and clearing a regrade request on it. Throws (the database unchanged) when the
    // result lacks a key, hash or status, or another writer held the database past the busy timeout.
    void store(const LabResult& result);

    std::optional<LabResult> result(const std::string& student, const std::string& lab) const;
    // Every result, ordered by student then lab (byte order, as the database compares text).
    std::vector<LabResult> all_results() const;

    // The submission-labs of `found` that need grading, in the order given, each with its reason.
    std::vector<WorkItem> work_list(const std::vector<FoundSubmission>& found,
                                    const WorkListOptions& options) const;

    // Marks the selected results to be graded again. Their old grades stay until the new ones
    // replace them, so a batch interrupted while regrading loses nothing, and one resumed regrades
    // only what it has not yet redone. Returns how many results were marked.
    int mark_for_regrade(const Selection& selection);
    // Deletes the selected results (a student who withdrew, a lab taken out of the course).
    // Returns how many were deleted.
    int forget(const Selection& selection);

    // The batch's settings (seed, mode, the folder graded...), as text by key.
    void set_setting(const std::string& key, const std::string& value);
    std::optional<std::string> setting(const std::string& key) const;
    std::map<std::string, std::string> settings() const;

    // Takes the other database's results where this one has none for that (student, lab) or an older
    // one (by finished_at), in one transaction. Settings are not merged. Returns how many rows were
    // taken. Throws when the other file is missing or has another schema version.
    int merge_from(const std::filesystem::path& other);

private:
    struct Close {
        void operator()(sqlite3* db) const;
    };
    std::filesystem::path path_;
    std::chrono::milliseconds busy_timeout_;
    std::unique_ptr<sqlite3, Close> db_;
};

}  // namespace gpulab::grade_class
