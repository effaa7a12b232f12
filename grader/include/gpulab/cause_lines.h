// The lines of the student's source that carry each measured cause (issue 45): CPU execution mode counts every
// request at the instruction that made it, and the solution's line table names that instruction's line
// (source_lines.h). Each cause that is one line's is put down to the lines that hold most of it:
//   uncoalesced loads or stores: the sectors their requests fetch or write;
//   bank conflicts: the extra turns of their shared requests;
//   divergent warps: their requests issued by fewer lanes than their warp has.
// On a GPU the same causes are put down to lines from CUPTI's per-instruction counters of a drawn timed sample
// (instruction_counters.h): the same fields, except that the GPU counts a request's lanes, not which request had
// idle ones, so its divergence is the share of idle lanes (LaneCount::average).
// At most kMaxCauseLines lines a cause, each holding at least kLeastCauseShare of it, with that line's own figure.
#pragma once

#include "gpulab/access_diagnosis.h"
#include "gpulab/read_counter.h"

#include <string>
#include <utility>
#include <vector>

namespace gpulab {

constexpr std::size_t kMaxCauseLines = 2;
constexpr double kLeastCauseShare = 0.10;

// Whether `cause` is one that lines carry (uncoalesced loads or stores, bank conflicts, divergent warps): the causes
// a block size, an occupancy or a grid decides are not.
bool is_line_cause(const std::string& cause);

// Whether `cause` is one a launch's configuration decides (block size, occupancy limited by shared memory or
// registers, blocks that end before the next start, a grid smaller than the GPU): its line is the launch's.
bool is_launch_cause(const std::string& cause);

// Whether a drawn GPU sample showing `cause` is worth counting instruction by instruction (instruction_counters.h):
// the line causes, and barrier-stalls, whose lines are the __syncthreads() calls its warps executed.
bool needs_instruction_counts(const std::string& cause);

// Puts barrier-stalls down to the __syncthreads() lines of `barriers` (each line quoted, with its barrier
// instructions' warp executions), the most executed first: at most kMaxCauseLines, each with kLeastCauseShare of
// the executions or more. The counters say how long warps waited, not at which barrier: the lines are where the
// waits can be, with their share of the barriers executed.
void name_barrier_lines(std::vector<Diagnosis>& diagnoses, std::vector<std::pair<std::string, double>> barriers);

// Puts each such cause of `diagnoses` down to `launch_line` (SourceLine::quoted() of the launch's <<<...>>>), with
// `configuration` ("grid 96x1x1, block 256x1x1") as its figure; nothing where the line is "".
void name_launch_line(std::vector<Diagnosis>& diagnoses, const std::string& launch_line, const std::string& configuration);

// What an InstructionCount's idle_requests hold: CPU execution mode's requests that had idle lanes (exact), or the
// GPU's idle lanes of all its requests (average: 32 * requests - lanes that ran).
enum class LaneCount { exact, average };

// Fills each diagnosis's `lines` from `instructions` (the count the figures come from). Returns why no line could be
// named where a cause is one line's and none was ("" otherwise).
std::string name_cause_lines(std::vector<Diagnosis>& diagnoses, const std::vector<InstructionCount>& instructions);

// The same where each instruction's line is known already: `quoted[k]` is instruction k's line as
// SourceLine::quoted() writes it ("" where unknown); `why_unknown` says why the unknown ones are.
std::string name_cause_lines(std::vector<Diagnosis>& diagnoses, const std::vector<InstructionCount>& instructions,
                             const std::vector<std::string>& quoted, const std::string& why_unknown, LaneCount lanes);

}  // namespace gpulab
