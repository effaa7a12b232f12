// Figures of a report that do not depend on the submission graded (the CPU's own loops in lab 07's study,
// cuBLAS on this GPU), measured once per machine and kept: every later grading on that machine shows
// them again instead of spending seconds to measure the same thing. Reports only; no point ever rests on
// a cached figure.
//
// The cache is a folder of JSON files, $GPULAB_CACHE_DIR (gpulab-grade sets <build>/report-cache). Each
// entry carries the key it was measured under (the CPU or GPU model, the thread count, the sizes asked
// for, the grader's version of the loops): a different key measures again. Without the variable nothing
// is kept.
#pragma once

#include "gpulab/lab_config.h"

#include <optional>
#include <string>

namespace gpulab {

// The entry `name` when it was stored under `key`.
std::optional<Json> cached_report(const std::string& name, const Json& key);

// Stores `value` as `name` under `key` (written to a temporary file, then renamed: a reader never sees half).
// A cache that cannot be written is left alone: the report is measured again next time.
void store_report(const std::string& name, const Json& key, const Json& value);

// What identifies this machine's host CPU for a cached figure: its model name and the threads this
// process may use.
Json host_cpu_key();

}  // namespace gpulab
