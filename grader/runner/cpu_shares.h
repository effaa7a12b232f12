// Splitting the host's cores between gradings that run at once on different GPUs. A grading keeps the host busy
// beside its GPU: oracles on every core, CPU execution mode's read counts, the GoogleTest processes. Two of them
// each using every core slow each other down (13 % on two H200s), and one's timed tests then share the cores
// with the other's oracles. Each gets its own cores instead.
#pragma once

#include <string>
#include <vector>

namespace gpulab::runner {

// The cores this process may run on (its affinity mask: a Slurm task or `taskset` may have narrowed it).
std::vector<int> allowed_cpus();

// `cpus` split into `count` groups of consecutive cores, sizes differing by at most one, none shared. With fewer
// cores than groups each group still gets one core, shared round the list. count <= 0: no groups.
std::vector<std::vector<int>> cpu_shares(const std::vector<int>& cpus, int count);

// "0-15", "0-3,8,10-11": a core list as taskset and /proc write it.
std::string cpu_list_text(const std::vector<int>& cpus);

}  // namespace gpulab::runner
