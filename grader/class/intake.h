// Intake: one entry of the instructor's submissions folder (a folder, a .zip, a .tar.gz / .tgz) turned into
// the files each lab's lab.json lists as the student's, found even when misplaced in an obvious way, with
// everything else the submission brought listed as ignored and a content hash per lab.
//
// Only files whose name is a lab's source name (any case) are ever written to the scratch folder; the rest
// of a submission is read past and listed, so a copied grader, lab.json, header or build folder never reaches
// a workspace. Folders go through the same libarchive pipeline as archives (copied, not read in place): one
// set of limits and path checks for all three kinds, links are never followed, and the grade comes from a
// snapshot that a later change to the submissions folder cannot alter half way.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpulab::grade_class {

// What a lab takes from a student: labs/<lab>/lab.json's "sources" (plain file names).
struct LabSpec {
    std::string lab;
    std::vector<std::string> sources;
};

// Every labs/<lab>/lab.json under labs_dir, sorted by lab. Throws std::runtime_error naming the file when
// one is unreadable or its "sources" is not a non-empty list of plain file names.
std::vector<LabSpec> read_lab_specs(const std::string& labs_dir);

// The submissions in folder: full paths, sorted by name. Every entry counts (a stray file becomes a
// submission whose problem says it is not one, so nothing is dropped unseen) except hidden ones and
// __MACOSX. Throws std::runtime_error when folder is not a readable folder, or when two entries give one
// student id (alice/ and alice.zip): which one to grade is the instructor's call, not ours.
std::vector<std::string> list_submissions(const std::string& folder);

// The student id of an entry: its file name without .zip, .tar.gz, .tgz or .tar (any case).
std::string student_id(const std::string& entry_path);

// Caps on one submission, so that a zip bomb stops with a message instead of filling the disk.
struct IntakeLimits {
    std::uint64_t max_total_bytes = 256ull << 20;  // unpacked bytes of all entries, written or read past
    std::uint64_t max_entries = 20000;             // entries of any kind (an inode bomb of empty files)
};

struct LabFiles {
    std::string lab;
    std::map<std::string, std::string> files;  // source name as lab.json spells it -> absolute path taken
    std::vector<std::string> missing;          // sources not found, ambiguous ones included
    std::vector<std::string> ambiguous;        // sources with two different candidates: none was taken
    std::vector<std::string> notes;            // each file taken from elsewhere than the exact place; ambiguities
    std::string content_hash;                  // hex SHA-256 of the lab name and each taken file's name and bytes
    bool empty() const { return files.empty(); }
};

struct Submission {
    std::string student;       // student_id(entry)
    std::string entry;         // the path given to take_submission
    std::string unpacked_dir;  // the scratch folder the candidate files were written to (absolute)
    std::string problem;       // why the submission could not be taken (unreadable, over a cap); empty if none
    std::vector<LabFiles> labs;          // one per LabSpec, in the given order (all empty when problem is set)
    std::vector<std::string> ignored;    // what it brought that is not taken, paths relative to the submission
    std::vector<std::string> notes;      // about the whole submission: nested in one folder, no files at all
    bool empty() const;                  // no lab has any file
    const LabFiles* lab(const std::string& name) const;  // nullptr when no such lab
};

// Takes one submission. scratch_dir is created and must be empty (remove a leftover of an interrupted run
// first: intake never deletes what it did not write); throws std::invalid_argument otherwise. Anything
// wrong with the submission itself is reported in problem, never thrown.
Submission take_submission(const std::string& entry_path, const std::string& scratch_dir,
                           const std::vector<LabSpec>& labs, const IntakeLimits& limits = {});

}  // namespace gpulab::grade_class
