// A finished submission-lab as a file of its own: what a Slurm array task writes on the shared filesystem
// instead of the results database (SQLite over NFS, written from many nodes at once, loses data), and what the
// submitting side imports into the database.
//
// A file holds everything a database row holds, and is written whole or not at all (a temporary file in the
// same folder, then rename), so a task killed half way leaves no half-written result. Importing is idempotent:
// a result whose (student, lab, content hash, grader version) the database already holds, as new or newer,
// counts once however often its file is read.
#pragma once

#include "results_db.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace gpulab::grade_class {

nlohmann::json result_to_json(const LabResult& result);
// Throws std::runtime_error naming the field when one is missing or of the wrong type.
LabResult result_from_json(const nlohmann::json& json);

// Now, as the database writes finished_at: UTC, ISO 8601 with milliseconds.
std::string utc_now_iso8601_ms();

// <dir>/<student>.<lab>.json: one file per submission-lab of a shard.
std::filesystem::path result_file_path(const std::filesystem::path& dir, const std::string& student, const std::string& lab);

// Writes the result (finished_at filled in when empty) atomically; returns its path. Throws on a write error.
std::filesystem::path write_result_file(const std::filesystem::path& dir, LabResult result);

// Reads one result file. Throws std::runtime_error naming the file when it is not a whole result.
LabResult read_result_file(const std::filesystem::path& path);

struct ImportCount {
    std::vector<LabResult> imported;    // stored in the database by this call
    int already = 0;                    // the database holds this grading already (or a newer one)
    int stale = 0;                      // for files or a grader version the class no longer has: left alone
    std::vector<std::string> problems;  // unreadable files, each with why
};

// Imports the result files in `dirs` (*.json directly in each) that belong to the class as the intake found it
// now (`found`: the same student, lab and content hash) and were graded by `grader_version`.
ImportCount import_result_files(const std::vector<std::filesystem::path>& dirs, ResultsDb& db,
                                const std::vector<FoundSubmission>& found, const std::string& grader_version);

}  // namespace gpulab::grade_class
