// The GPU's counts of each instruction of a launch, with each instruction's source line (issue 45, item 1): where a
// measured cause (uncoalesced loads or stores, bank conflicts, divergent warps) lies in the student's .cu file.
//
// CUPTI's SASS metrics patch the kernel so that every memory instruction counts its own requests, lanes, sectors and
// shared-memory wavefronts; the GPU build has line tables (-lineinfo), and CUPTI maps an instruction's offset in its
// cubin to a line (cuptiGetSassToSourceCorrelation). The cubins are read from the solution library's own fatbin
// (kernel_resources.h: cubins_in_library) and matched to the counted code by their CRC. The counts are CPU execution mode's InstructionCount fields, so
// cause_lines.h names the lines the same way in both modes; only the lanes differ (LaneCount::average): the GPU
// counts the lanes a request ran, not which request had idle ones.
//
// Which launch: the drawn timed sample of the student's launch read with every metric (timed_samples.h), run once
// more under the patched kernel after its counters are read. The extra run is feedback only: no figure of it is
// timed, compared or scored. It costs the patching (about 0.2 s a kernel on an H100) and one slower launch.
#pragma once

#include "gpulab/read_counter.h"

#include <functional>
#include <string>
#include <vector>

namespace gpulab {

struct InstructionCounts {
    std::vector<InstructionCount> instructions;  // each memory instruction that ran (ip: its offset in its kernel)
    std::vector<std::string> lines;               // instruction k's line, SourceLine::quoted(); "" where unknown
    // The lines of the student's __syncthreads() calls, each with its barrier instructions' warp executions.
    std::vector<std::pair<std::string, double>> barrier_lines;
    std::string why;       // why nothing was counted, or why some lines are unknown ("" where all are known)
    double seconds = 0;    // the patching, the launch and the line lookup
};

// Runs `launch` once with its kernels' instructions counted; `library`: the solution library whose kernels it runs
// (where their cubins and line tables are). Synchronizes the device. In CPU execution mode: nothing, with the reason.
InstructionCounts read_instruction_counters(const std::function<void()>& launch, const std::string& library);

}  // namespace gpulab
