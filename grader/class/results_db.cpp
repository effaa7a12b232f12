#include "results_db.h"

#include <sqlite3.h>

#include <map>
#include <regex>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <utility>

namespace gpulab::grade_class {

namespace {

// The schema of version 1. The key is (student, lab), never a rowid, so that rows from databases
// filled on other machines merge. The seed is kept as decimal text: SQLite's integers are signed
// 64-bit, and an instructor reading the file with the sqlite3 shell must see the seed that
// GPULAB_SEED takes, not its two's-complement. finished_at is ISO 8601 UTC text, which sorts in time
// order, so "newer" is a text comparison.
constexpr const char* create_schema_sql = R"sql(
CREATE TABLE results (
    student           TEXT NOT NULL CHECK (student <> ''),
    lab               TEXT NOT NULL CHECK (lab <> ''),
    content_hash      TEXT NOT NULL CHECK (content_hash <> ''),
    status            TEXT NOT NULL CHECK (status <> ''),
    points            REAL NOT NULL,
    max_points        REAL NOT NULL,
    result_json       TEXT NOT NULL,
    gpu_name          TEXT NOT NULL,
    driver_version    TEXT NOT NULL,
    grader_version    TEXT NOT NULL,
    seed              TEXT NOT NULL,
    worker            TEXT NOT NULL,
    build_seconds     REAL NOT NULL,
    run_seconds       REAL NOT NULL,
    finished_at       TEXT NOT NULL,
    regrade_requested INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (student, lab)
) WITHOUT ROWID;
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
)sql";

constexpr const char* select_results_sql =
    "SELECT student, lab, content_hash, status, points, max_points, result_json, gpu_name,"
    " driver_version, grader_version, seed, worker, build_seconds, run_seconds, finished_at,"
    " regrade_requested FROM results";

// Replaces the whole row: a result is self-contained, nothing of an older grade survives in it.
constexpr const char* write_result_sql =
    "INSERT OR REPLACE INTO results (student, lab, content_hash, status, points, max_points,"
    " result_json, gpu_name, driver_version, grader_version, seed, worker, build_seconds, run_seconds,"
    " finished_at, regrade_requested)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
    " COALESCE(NULLIF(?15, ''), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), ?16)";

// A Selection in SQL: a NULL parameter matches every student (or lab).
constexpr const char* selection_where = " WHERE (?1 IS NULL OR student = ?1) AND (?2 IS NULL OR lab = ?2)";

[[noreturn]] void fail(sqlite3* db, int rc, const std::filesystem::path& path, const std::string& doing) {
    const int primary = rc & 0xff;
    std::string what = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
        what = "another process kept the database locked for longer than the busy timeout (is another "
               "gpulab-grade-class writing to it?); nothing was written";
    else if (primary == SQLITE_NOTADB)
        what = "the file is not an SQLite database: is this the right path?";
    else if (primary == SQLITE_FULL)
        what = "the disk is full";
    throw std::runtime_error("results database " + path.string() + ": " + doing + ": " + what);
}

// A prepared statement with bound parameters, finalized when it goes out of scope.
class Statement {
public:
    Statement(sqlite3* db, const std::filesystem::path& path, std::string_view sql, std::string doing)
        : db_(db), path_(path), doing_(std::move(doing)) {
        const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
        if (rc != SQLITE_OK) fail(db_, rc, path_, doing_);
    }
    ~Statement() { sqlite3_finalize(stmt_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int index, const std::string& value) {
        return check_bind(sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                                            SQLITE_TRANSIENT));
    }
    Statement& bind(int index, double value) { return check_bind(sqlite3_bind_double(stmt_, index, value)); }
    Statement& bind(int index, std::int64_t value) { return check_bind(sqlite3_bind_int64(stmt_, index, value)); }
    Statement& bind(int index, const std::optional<std::string>& value) {
        return value ? bind(index, *value) : check_bind(sqlite3_bind_null(stmt_, index));
    }

    // True while there is a row to read; false when the statement has run to its end.
    bool step() {
        const int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        fail(db_, rc, path_, doing_);
    }
    void run() {
        while (step()) {
        }
    }
    void reset() {
        sqlite3_reset(stmt_);
        sqlite3_clear_bindings(stmt_);
    }

    std::string text(int column) const {
        const auto* bytes = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
        return bytes ? std::string(bytes, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))) : "";
    }
    double real(int column) const { return sqlite3_column_double(stmt_, column); }
    std::int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }

private:
    Statement& check_bind(int rc) {
        if (rc != SQLITE_OK) fail(db_, rc, path_, doing_);
        return *this;
    }
    sqlite3* db_;
    const std::filesystem::path& path_;
    std::string doing_;
    sqlite3_stmt* stmt_ = nullptr;
};

void execute(sqlite3* db, const std::filesystem::path& path, const char* sql, const std::string& doing) {
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) fail(db, rc, path, doing);
}

// BEGIN IMMEDIATE takes the write lock at the start, so a writer waits in the busy handler for
// another one to finish instead of failing when its read would have to become a write.
// Rolled back unless committed: an exception on the way leaves the database as it was.
class WriteTransaction {
public:
    WriteTransaction(sqlite3* db, const std::filesystem::path& path, std::string doing)
        : db_(db), path_(path), doing_(std::move(doing)) {
        execute(db_, path_, "BEGIN IMMEDIATE", doing_);
    }
    ~WriteTransaction() {
        if (!committed_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    WriteTransaction(const WriteTransaction&) = delete;
    WriteTransaction& operator=(const WriteTransaction&) = delete;
    void commit() {
        execute(db_, path_, "COMMIT", doing_);
        committed_ = true;
    }

private:
    sqlite3* db_;
    const std::filesystem::path& path_;
    std::string doing_;
    bool committed_ = false;
};

std::string key_text(const std::string& student, const std::string& lab) { return student + " / " + lab; }

struct StoredRow {
    LabResult result;
    bool regrade_requested = false;
};

StoredRow read_row(const Statement& row, const std::filesystem::path& path) {
    StoredRow stored;
    LabResult& r = stored.result;
    r.student = row.text(0);
    r.lab = row.text(1);
    r.content_hash = row.text(2);
    r.status = row.text(3);
    r.points = row.real(4);
    r.max_points = row.real(5);
    try {
        r.result = nlohmann::json::parse(row.text(6));
    } catch (const nlohmann::json::parse_error& e) {
        throw std::runtime_error("results database " + path.string() + ": the result of " +
                                 key_text(r.student, r.lab) + " is not valid JSON: " + e.what());
    }
    r.gpu_name = row.text(7);
    r.driver_version = row.text(8);
    r.grader_version = row.text(9);
    try {
        r.seed = std::stoull(row.text(10));
    } catch (const std::exception&) {
        throw std::runtime_error("results database " + path.string() + ": the seed of " +
                                 key_text(r.student, r.lab) + " is \"" + row.text(10) + "\", not a number");
    }
    r.worker = row.text(11);
    r.build_seconds = row.real(12);
    r.run_seconds = row.real(13);
    r.finished_at = row.text(14);
    stored.regrade_requested = row.integer(15) != 0;
    return stored;
}

std::vector<StoredRow> read_rows(sqlite3* db, const std::filesystem::path& path) {
    Statement rows(db, path, std::string(select_results_sql) + " ORDER BY student, lab", "reading the results");
    std::vector<StoredRow> out;
    while (rows.step()) out.push_back(read_row(rows, path));
    return out;
}

void check_result(const LabResult& r, const std::filesystem::path& path) {
    const std::string doing = "storing the result of " + key_text(r.student, r.lab);
    auto refuse = [&](const std::string& why) {
        throw std::runtime_error("results database " + path.string() + ": " + doing + ": " + why);
    };
    if (r.student.empty() || r.lab.empty()) refuse("the student or the lab is empty");
    if (r.content_hash.empty()) refuse("the content hash is empty");
    if (r.status.empty()) refuse("the status is empty");
    static const std::regex iso8601_utc_ms(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)");
    if (!r.finished_at.empty() && !std::regex_match(r.finished_at, iso8601_utc_ms))
        refuse("finished_at is \"" + r.finished_at +
               "\"; it must be UTC like 2025-01-31T14:05:09.123Z (or empty for now), so that times compare");
}

void write_row(sqlite3* db, const std::filesystem::path& path, const LabResult& r, bool regrade_requested) {
    Statement insert(db, path, write_result_sql, "storing the result of " + key_text(r.student, r.lab));
    insert.bind(1, r.student).bind(2, r.lab).bind(3, r.content_hash).bind(4, r.status);
    insert.bind(5, r.points).bind(6, r.max_points).bind(7, r.result.dump());
    insert.bind(8, r.gpu_name).bind(9, r.driver_version).bind(10, r.grader_version);
    insert.bind(11, std::to_string(r.seed)).bind(12, r.worker);
    insert.bind(13, r.build_seconds).bind(14, r.run_seconds).bind(15, r.finished_at);
    insert.bind(16, std::int64_t{regrade_requested ? 1 : 0});
    insert.run();
}

int user_version(sqlite3* db, const std::filesystem::path& path) {
    Statement version(db, path, "PRAGMA user_version", "reading the schema version");
    version.step();
    return static_cast<int>(version.integer(0));
}

void check_schema_version(int found, const std::filesystem::path& path) {
    if (found == ResultsDb::schema_version) return;
    throw std::runtime_error(
        "results database " + path.string() + " has schema version " + std::to_string(found) +
        ", and this gpulab-grade-class reads version " + std::to_string(ResultsDb::schema_version) +
        ": use the gpulab version that wrote it, or grade into a new database file");
}

}  // namespace

std::string describe(WorkReason reason) {
    switch (reason) {
        case WorkReason::not_graded: return "not graded yet";
        case WorkReason::files_changed: return "files changed since it was graded";
        case WorkReason::grader_changed: return "graded by another grader version";
        case WorkReason::retry: return "grading failed last time";
        case WorkReason::regrade_requested: return "regrade requested";
    }
    return "unknown reason";
}

void ResultsDb::Close::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

ResultsDb::ResultsDb(const std::filesystem::path& path, std::chrono::milliseconds busy_timeout)
    : path_(path), busy_timeout_(busy_timeout) {
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    db_.reset(raw);  // sqlite3_open_v2 hands back a handle to close even when it fails
    if (rc != SQLITE_OK) fail(db_.get(), rc, path_, "opening it");
    sqlite3_extended_result_codes(db_.get(), 1);
    sqlite3_busy_timeout(db_.get(), static_cast<int>(busy_timeout.count()));

    // WAL: a writer never blocks the readers (the progress bar, a report run while grading), and a
    // process killed during a write leaves the last committed state, since an uncommitted
    // transaction in the log is ignored. WAL needs shared memory on one host: keep the file on a
    // local disk, one database per machine, and merge (merge_from) rather than share it over NFS.
    {
        Statement mode(db_.get(), path_, "PRAGMA journal_mode=WAL", "switching to WAL journal mode");
        if (!mode.step() || mode.text(0) != "wal")
            throw std::runtime_error("results database " + path_.string() +
                                     ": cannot use WAL journal mode here (a network file system?): keep "
                                     "the database on a local disk");
    }
    // synchronous=FULL: each commit reaches the disk before store() returns, so a finished result
    // survives a power cut or reboot too, not only a killed process (NORMAL may lose the last commits
    // then). It costs one fsync per submission-lab, which took seconds to minutes to grade.
    execute(db_.get(), path_, "PRAGMA synchronous=FULL", "setting synchronous=FULL");

    // An existing database is only read here, so opening one takes no write lock; a new one gets its
    // schema in a write transaction that checks again, since another process may be creating it too.
    if (user_version(db_.get(), path_) == 0) {
        WriteTransaction transaction(db_.get(), path_, "creating the schema");
        if (user_version(db_.get(), path_) == 0) {
            Statement tables(db_.get(), path_, "SELECT count(*) FROM sqlite_master", "reading the schema");
            tables.step();
            if (tables.integer(0) != 0)
                throw std::runtime_error("results database " + path_.string() +
                                         " holds other tables and no gpulab schema version: it is not a gpulab "
                                         "results database; name a new file");
            execute(db_.get(), path_, create_schema_sql, "creating the schema");
            execute(db_.get(), path_, ("PRAGMA user_version=" + std::to_string(schema_version)).c_str(),
                    "setting the schema version");
        }
        transaction.commit();
    }
    check_schema_version(user_version(db_.get(), path_), path_);
}

ResultsDb::~ResultsDb() = default;

void ResultsDb::store(const LabResult& result) {
    check_result(result, path_);
    WriteTransaction transaction(db_.get(), path_, "storing the result of " + key_text(result.student, result.lab));
    write_row(db_.get(), path_, result, false);
    transaction.commit();
}

std::optional<LabResult> ResultsDb::result(const std::string& student, const std::string& lab) const {
    Statement row(db_.get(), path_, std::string(select_results_sql) + " WHERE student = ?1 AND lab = ?2",
                  "reading the result of " + key_text(student, lab));
    row.bind(1, student).bind(2, lab);
    if (!row.step()) return std::nullopt;
    return read_row(row, path_).result;
}

std::vector<LabResult> ResultsDb::all_results() const {
    std::vector<LabResult> out;
    for (auto& row : read_rows(db_.get(), path_)) out.push_back(std::move(row.result));
    return out;
}

std::vector<WorkItem> ResultsDb::work_list(const std::vector<FoundSubmission>& found,
                                           const WorkListOptions& options) const {
    // One read of what is graded, then a decision per submission-lab.
    struct Graded {
        std::string content_hash, grader_version, status;
        bool regrade_requested;
    };
    std::map<std::pair<std::string, std::string>, Graded> graded;
    {
        Statement rows(db_.get(), path_,
                       "SELECT student, lab, content_hash, grader_version, status, regrade_requested FROM results",
                       "reading what is graded");
        while (rows.step())
            graded[{rows.text(0), rows.text(1)}] = {rows.text(2), rows.text(3), rows.text(4), rows.integer(5) != 0};
    }

    std::vector<WorkItem> work;
    std::set<std::pair<std::string, std::string>> seen;
    for (const FoundSubmission& submission : found) {
        const std::pair key{submission.student, submission.lab};
        if (!seen.insert(key).second)
            throw std::invalid_argument("the submissions hold " + key_text(submission.student, submission.lab) +
                                        " twice: grading both would keep only one; remove one of them");
        const auto it = graded.find(key);
        std::optional<WorkReason> reason;
        if (it == graded.end())
            reason = WorkReason::not_graded;
        else if (it->second.regrade_requested)
            reason = WorkReason::regrade_requested;
        else if (it->second.content_hash != submission.content_hash)
            reason = WorkReason::files_changed;
        else if (it->second.grader_version != options.grader_version &&
                 options.on_grader_change == WorkListOptions::OnGraderChange::regrade)
            reason = WorkReason::grader_changed;
        else if (options.retry_statuses.count(it->second.status))
            reason = WorkReason::retry;
        if (reason) work.push_back({submission, *reason});
    }
    return work;
}

int ResultsDb::mark_for_regrade(const Selection& selection) {
    WriteTransaction transaction(db_.get(), path_, "marking results for regrading");
    Statement mark(db_.get(), path_, std::string("UPDATE results SET regrade_requested = 1") + selection_where,
                   "marking results for regrading");
    mark.bind(1, selection.student).bind(2, selection.lab);
    mark.run();
    const int marked = sqlite3_changes(db_.get());
    transaction.commit();
    return marked;
}

int ResultsDb::forget(const Selection& selection) {
    WriteTransaction transaction(db_.get(), path_, "forgetting results");
    Statement remove(db_.get(), path_, std::string("DELETE FROM results") + selection_where, "forgetting results");
    remove.bind(1, selection.student).bind(2, selection.lab);
    remove.run();
    const int removed = sqlite3_changes(db_.get());
    transaction.commit();
    return removed;
}

void ResultsDb::set_setting(const std::string& key, const std::string& value) {
    WriteTransaction transaction(db_.get(), path_, "setting " + key);
    Statement set(db_.get(), path_, "INSERT OR REPLACE INTO settings (key, value) VALUES (?1, ?2)", "setting " + key);
    set.bind(1, key).bind(2, value);
    set.run();
    transaction.commit();
}

std::optional<std::string> ResultsDb::setting(const std::string& key) const {
    Statement get(db_.get(), path_, "SELECT value FROM settings WHERE key = ?1", "reading setting " + key);
    get.bind(1, key);
    if (!get.step()) return std::nullopt;
    return get.text(0);
}

std::map<std::string, std::string> ResultsDb::settings() const {
    Statement all(db_.get(), path_, "SELECT key, value FROM settings", "reading the settings");
    std::map<std::string, std::string> out;
    while (all.step()) out[all.text(0)] = all.text(1);
    return out;
}

int ResultsDb::merge_from(const std::filesystem::path& other_path) {
    if (!std::filesystem::is_regular_file(other_path))
        throw std::runtime_error("cannot merge results from " + other_path.string() + ": no such file");
    // Opened without SQLITE_OPEN_CREATE and without ResultsDb's constructor: the other file is read,
    // never given a schema it does not have.
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(other_path.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
    const std::unique_ptr<sqlite3, Close> other(raw);
    if (rc != SQLITE_OK) fail(other.get(), rc, other_path, "opening it to merge");
    sqlite3_extended_result_codes(other.get(), 1);
    sqlite3_busy_timeout(other.get(), static_cast<int>(busy_timeout_.count()));
    check_schema_version(user_version(other.get(), other_path), other_path);
    const std::vector<StoredRow> theirs = read_rows(other.get(), other_path);

    WriteTransaction transaction(db_.get(), path_, "merging results from " + other_path.string());
    Statement ours(db_.get(), path_, "SELECT finished_at FROM results WHERE student = ?1 AND lab = ?2",
                   "merging results from " + other_path.string());
    int taken = 0;
    for (const StoredRow& row : theirs) {
        ours.bind(1, row.result.student).bind(2, row.result.lab);
        const bool ours_is_as_new = ours.step() && ours.text(0) >= row.result.finished_at;
        ours.reset();
        if (ours_is_as_new) continue;
        write_row(db_.get(), path_, row.result, row.regrade_requested);
        ++taken;
    }
    transaction.commit();
    return taken;
}

}  // namespace gpulab::grade_class
