// The lines of the student's source that carry each measured cause (issue 45): CPU execution mode counts every
// request at the instruction that made it, and the solution's line table names that instruction's line
// (source_lines.h). Each cause that is one line's is put down to the lines that hold most of it:
//   uncoalesced loads or stores: the sectors their requests fetch or write;
//   bank conflicts: the extra turns of their shared requests;
//   divergent warps: their requests issued by fewer lanes than their warp has.
// At most kMaxCauseLines lines a cause, each holding at least kLeastCauseShare of it, with that line's own figure.
#pragma once

#include "gpulab/access_diagnosis.h"
#include "gpulab/read_counter.h"

#include <vector>

namespace gpulab {

constexpr std::size_t kMaxCauseLines = 2;
constexpr double kLeastCauseShare = 0.10;

// Fills each diagnosis's `lines` from `instructions` (the count the figures come from). Returns why no line could be
// named where a cause is one line's and none was ("" otherwise).
std::string name_cause_lines(std::vector<Diagnosis>& diagnoses, const std::vector<InstructionCount>& instructions);

}  // namespace gpulab
