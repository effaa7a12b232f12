// Report.AccessAnalysis's timed launches counted side by side, each in a forked child of the grader.
//
// A count runs its launch on one thread (read_count.h: the pages it watches fault into one signal handler), so a lab of
// six timed launches took six counts' time: 9.9 s for lab 04 on a 2-core machine, twice issue 45's 5 s. Forked children
// count at once, as many as this process may use cores (host_threads()), and each starts from the grader's state as it
// was before any count: no launch's count sees pages, mappings or memory another left behind. A child that dies (a
// kernel that crashed the process, or the machine out of memory) costs only its own row.
#pragma once

#include "gpulab/access_analysis.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gpulab {

// Runs analyze(i) for each i in [0, n), each in a child process, up to `workers` at a time (0: host_threads()), and
// returns the rows in order of i. Where a child gives back no figures, its row is failed(i, why), `why` saying how the
// child ended. Where no child can be started, analyze(i) runs in this process.
std::vector<AccessFigures> analyze_in_children(std::size_t n, const std::function<AccessFigures(std::size_t)>& analyze,
                                               const std::function<AccessFigures(std::size_t, const std::string&)>& failed,
                                               unsigned workers = 0);

// The figures as bytes and back, as a child hands them to its parent (CBOR: NaN, the figures' "not known", survives).
std::vector<std::uint8_t> encode_access_figures(const AccessFigures& f);
AccessFigures decode_access_figures(const std::vector<std::uint8_t>& bytes);

}  // namespace gpulab
