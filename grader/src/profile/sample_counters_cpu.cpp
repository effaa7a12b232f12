// CPU execution mode reads no GPU counters: its processes count accesses themselves (read_counter.h), and the GPU's
// counters of the same launches come from the timing process of the GPU grader (sample_counters.h), handed over.
#include "gpulab/sample_counters.h"

namespace gpulab {

namespace {
const char* const kWhy = "CPU execution mode reads no GPU counters (the GPU grader's timing process does)";
}

bool counters_readable(std::string* why) {
    if (why) *why = kWhy;
    return false;
}

SampleCounters read_counters(const std::function<void()>&, CounterList) {
    SampleCounters out;
    out.error = kWhy;
    return out;
}

void release_counters() {}

}  // namespace gpulab
