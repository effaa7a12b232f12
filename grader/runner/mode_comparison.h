// --compare-modes: the same solution, seed and tests graded on the GPU and in CPU execution mode
// must get the same correctness verdicts, or CPU mode would pass or fail code the GPU does not.
#pragma once

#include "scoring.h"

#include <ostream>
#include <set>
#include <string>

namespace gpulab::runner {

// Prints one row per test id and returns kGraded when every id that ran in both modes got the same
// verdict (passed in both, or failed in both), else kRequirementNotMet. Ids in `may_differ` (a planted
// bug's may_fail tests) are exempt: racy code fails them on the CPU every time and on a GPU by luck.
// Ids in `graded_once` ran in CPU execution mode within the GPU grading and were left out of the CPU one: their
// row says so rather than leaving the CPU column unexplained.
int compare_modes(std::ostream& out, const LabScore& gpu, const LabScore& cpu, const std::set<std::string>& may_differ,
                  const std::set<std::string>& graded_once = {});

}  // namespace gpulab::runner
