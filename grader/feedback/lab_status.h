// The words a lab's grading status is written in: gpulab-grade's summary, the class results database (results_db.h)
// and every report of them say the same thing the same way.
#pragma once

namespace gpulab::feedback::status {
inline constexpr const char* graded = "graded";
inline constexpr const char* did_not_build = "did not build";
inline constexpr const char* empty = "empty";              // the submission had none of the lab's files
inline constexpr const char* refused = "refused";          // calls a library or API the lab forbids
inline constexpr const char* tampered = "tampered";        // tried to change how it is graded
inline constexpr const char* crashed = "crashed";          // the student's code took the grader down
inline constexpr const char* grader_error = "grader error";  // the grading machinery failed, not the student
}  // namespace gpulab::feedback::status
