// What an instructor and each student read after a class is graded, generated from the stored
// results: the gradebook CSV, Gradescope's results.json, per-student feedback (Markdown and HTML with
// the same content) and the class overview (a CSV and a plot). Everything here reads plain data: the
// results database's rows (results_db.h) and gpulab-grade's summary.json entries, never the database
// itself, so the same code serves a batch, a merged shard and a Gradescope container.
#pragma once

#include "lab_status.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace gpulab::feedback {

// One student's result for one lab. The status words are lab_status.h's status::* ("graded",
// "did not build", "empty", "refused", "tampered", "crashed", "grader error"); another word is shown
// as it is.
struct GradedLab {
    std::string student;
    std::string lab;
    std::string status;
    double points = 0;
    double max_points = 0;
    // gpulab-grade's entry for this lab in summary.json (title, tests[], admission,
    // artifacts, ...); null where nothing ran (an empty submission).
    nlohmann::json result;
    // From intake, for the student: where files were found, what was brought and ignored.
    std::vector<std::string> notes;
    // Where the relative paths in result["artifacts"] are; absolute paths are used as they are.
    std::string artifacts_dir;
    std::string mode;            // "gpu" or "cpu" (CPU execution mode: speed and technique not run)
    std::string gpu_name, driver_version, grader_version, seed;
    // Logs to link, each (what it is, a path relative to the feedback): a student's report page links its lab's.
    std::vector<std::pair<std::string, std::string>> logs;
};

// The status gpulab-grade's summary.json entry implies: did not build, refused, tampered, else graded.
std::string status_of(const nlohmann::json& lab_entry);

// The admission verdict of a summary.json entry, whole ("admission": {"verdict", "reason"}; admission.h's keys:
// "admitted", "refused", "not_compiled", "cpu_mode_cannot_build", "tampered"), also from an entry written before it
// travelled whole (compiled, build_errors, voided, void_reason).
struct AdmissionOfLab {
    std::string verdict;  // "" where the entry says nothing: admitted
    std::string reason;
};
AdmissionOfLab admission_of(const nlohmann::json& lab_entry);

// Every lab of one gpulab-grade run (summary.json as a whole) as GradedLabs of `student`: points,
// status, mode, GPU and seed from the summary; relative artifact paths resolve against `grade_dir`.
std::vector<GradedLab> graded_labs_from_summary(const std::string& student, const nlohmann::json& summary,
                                                const std::string& grade_dir = "");

// ---- the gradebook --------------------------------------------------------------------------------------

// One row per student (sorted), with the columns: student, one per lab in `labs_in_order` (the points,
// empty where the lab has no result), total, max_total, points_not_run (speed and technique points a
// CPU-mode run could not grade), status ("graded" where every lab is; else each lab that is not, e.g.
// "07-matmul: did not build; 02-heat-2d: not graded"). Fields are quoted as RFC 4180 says; a text field
// a spreadsheet would run as a formula (=, +, -, @ first) gets a leading apostrophe.
// Throws std::runtime_error naming the path when it cannot be written.
void write_gradebook_csv(const std::filesystem::path& path, const std::vector<std::string>& labs_in_order,
                         const std::vector<GradedLab>& results);

// One CSV field, quoted where it needs to be (exposed for the tests and for other CSV writers).
std::string csv_field(const std::string& text);

// ---- Gradescope ---------------------------------------------------------------------------------------

// Gradescope's results.json for one student's labs
// (https://gradescope-autograders.readthedocs.io/en/latest/specs/): "score" (the sum of the labs'
// points), "output" (Markdown: one line per lab, and why a lab scored nothing), "output_format": "md",
// "visibility": "visible", and "tests": one per test of each lab, named "<lab> <test id>", with score,
// max_score, status ("passed" / "failed"), output (Markdown: verdict, measured, threshold, what went
// wrong, and the test's "report_table" property in a code block where it recorded one) and output_format
// "md". A lab without tests (did not build, empty) is one test of the lab's points, so the tests' scores
// and max_scores sum to the labs' points and maxima.
nlohmann::json gradescope_results_json(const std::vector<GradedLab>& results_of_one_student);

// ---- feedback for a student ---------------------------------------------------------------------------

struct FeedbackFiles {
    std::filesystem::path markdown;           // <dir>/feedback.md
    std::filesystem::path html;               // <dir>/feedback.html
    std::vector<std::string> pictures;        // copied, relative to <dir> (pictures/<lab>/<name>)
    std::vector<std::string> missing_pictures;  // artifacts that were listed but could not be copied
};

// Writes <dir>/feedback.md and <dir>/feedback.html with the same content: per lab the status, the
// compiler's message or the reason the lab was refused, the table (test, points, verdict, measured,
// threshold), what went wrong (in the order gpulab-grade gave: summary.json's lab "feedback", else each
// test's "details" in the table's order), the tables tests recorded in their "report_table" property
// (Report.GpuProfile, Report.AccessAnalysis: a preformatted block under the test's name, its columns kept, its prose
// lines wrapped at the table's width), each followed at full width by the pictures its "measured" names, what the
// submission brought that was ignored, and the lab's other pictures (all copied to <dir>/pictures/<lab>/ and
// referenced relatively). The HTML is one file with
// inline CSS and no script, readable when printed; every text from the run is escaped.
// Throws std::runtime_error naming the path when a file cannot be written.
FeedbackFiles write_feedback(const std::filesystem::path& dir, const std::string& student,
                             const std::vector<GradedLab>& results);

// ---- a student's own report page ----------------------------------------------------------------------------

// One gpulab-grade run's page for the student (issue 45): `out`/report.html, beside summary.json, with the same
// content as a class's feedback.html (write_feedback: one renderer), and self-contained: every picture's bytes are
// in the page (data: URIs), so it opens on a laptop without the grading folder and needs no network; each lab's logs
// are linked (paths relative to `out`). `summary`: summary.json's content; `whose`: the heading's "Feedback for ...".
// Returns the page's path; throws std::runtime_error naming the path when it cannot be written.
std::filesystem::path write_report_page(const std::filesystem::path& out, const nlohmann::json& summary,
                                        const std::string& whose);

// ---- the class overview ---------------------------------------------------------------------------------

struct OverviewFiles {
    std::filesystem::path csv;  // <dir>/overview.csv
    std::filesystem::path png;  // <dir>/overview.png, when drawn
    bool plotted = false;
    std::string plot_skipped_because;  // when not plotted: why, in a line an instructor can act on
};

// Writes <dir>/overview.csv, one record per row (column "record"):
//   score    lab, student, status, points, max_points: one per result (the score distribution)
//   lab      lab, students, status counts ("graded=12 did not build=1"), mean, median, max_points
//   failing  lab, test, students (how many graded submissions lost points on it), max_points
// A test "fails" for a student when the lab was graded and it scored below its points for a reason
// other than "not run"; labs that did not build or were refused are counted by status, not here.
// Then draws overview.png with gpulab_plot.py's class-overview kind (skipped, with the reason, when
// Python or matplotlib is missing). Throws std::runtime_error naming the path when the CSV cannot be
// written; a plot that cannot be drawn never throws.
OverviewFiles write_overview(const std::filesystem::path& dir, const std::vector<GradedLab>& results);

}  // namespace gpulab::feedback

// Class grading (grader/class) names these as its own.
namespace gpulab::grade_class {
using namespace gpulab::feedback;
}  // namespace gpulab::grade_class
