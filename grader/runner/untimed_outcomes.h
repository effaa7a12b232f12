// A lab's test outcomes kept after a grading (outcomes.json beside its logs), so that a later grading of the
// same build can take the untimed tests' outcomes from it and run only the timed tests (--untimed-from).
// make test on a GPU grades each solution once without timing, with the other checks in parallel, and then
// runs only its timed tests alone: the untimed tests no longer hold the whole machine.
#pragma once

#include "test_session.h"

#include <set>
#include <string>

namespace gpulab::runner {

// What the outcomes are of: an imported file must be of this lab, solution and mode.
struct GradedWhat {
    std::string lab, solution, mode;
};

// Written after every graded (not voided) run: <work>/outcomes.json.
void save_outcomes(const std::string& work_dir, const GradedWhat& what, const SessionResult& session);

// The outcomes of every test that is not in `timed_ids`, from <from_dir>/<lab>/outcomes.json, with the
// earlier run's device and seed. Throws UsageError (lab_grading.h) where the file is missing, unreadable, of
// another lab, solution or mode, or older than the solution's library (graded before its last build).
SessionResult load_untimed_outcomes(const std::string& from_dir, const GradedWhat& what,
                                    const std::string& student_library, const std::set<std::string>& timed_ids);

}  // namespace gpulab::runner
