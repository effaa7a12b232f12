// The metric lists the drawn samples are read with, and a recorded launch's attributes under ncu's names
// (sample_counters.h). Compiled in both modes: the lists name what the handed-over samples hold.
#include "gpulab/sample_counters.h"

namespace gpulab {

std::vector<std::string> counter_metrics(CounterList list, bool count_shared_bytes) {
    using namespace ncu_metric;
    // What the agreement with CPU execution mode compares (gpu_profile.h, check_drawn_sample): the bytes the threads
    // loaded from global and shared memory, and the requests and sectors beside them. Two passes on an H100, one of
    // them patched.
    std::vector<std::string> names = {kDuration, kGlobalLoadBytes, kGlobalLoadRequests, kGlobalLoadSectors,
                                      kSharedLoadRequests};
    if (list == CounterList::full) {
        names.insert(names.end(), {kGlobalStoreBytes, kGlobalStoreRequests, kGlobalStoreSectors, kSharedStoreRequests,
                                   kSharedLoadConflicts, kSharedStoreConflicts, kDramRead, kDramWrite,
                                   kAchievedOccupancy, kLocalLoadBytes, kLocalStoreBytes, kBranchTargets,
                                   kBranchDivergent, kWarpInstructions, kWorkingLaneInstructions});
        if (count_shared_bytes) names.push_back(kSharedStoreBytes);
        // A chip without the barrier counters leaves them out (sample_counters.cpp): no barrier-stalls there.
        names.insert(names.end(), {kBarrierStalledWarps, kActiveWarps});
    }
    if (count_shared_bytes) names.push_back(kSharedLoadBytes);
    if (global_load_metric() != kGlobalLoadBytes) names.push_back(global_load_metric());
    return names;
}

std::map<std::string, double> launch_metrics(const RecordedLaunch& l) {
    using namespace ncu_metric;
    return {{kBlockSize, double(l.block.x) * l.block.y * l.block.z},
            {kGridSize, double(l.grid.x) * l.grid.y * l.grid.z},
            {kRegisters, double(l.registers)},
            {kSharedStatic, double(l.static_shared_bytes)},
            {kSharedDynamic, double(l.dynamic_shared_bytes)}};
}

}  // namespace gpulab
