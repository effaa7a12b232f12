#include "wave_plan.h"

#include <algorithm>

namespace gpulab::runner {

WavePlan plan_wave(const std::set<std::string>& waiting, const std::map<std::string, std::vector<std::string>>& requires_of,
                   const std::set<std::string>& timed_ids, const std::function<bool(const std::string&)>& passed) {
    WavePlan plan;
    const bool untimed_waiting =
        std::any_of(waiting.begin(), waiting.end(), [&](const std::string& id) { return !timed_ids.count(id); });
    for (const std::string& id : waiting) {
        if (untimed_waiting && timed_ids.count(id)) continue;
        const auto found = requires_of.find(id);
        bool is_ready = true;
        std::string blocked_by;
        if (found != requires_of.end())
            for (const std::string& required : found->second) {
                if (waiting.count(required)) is_ready = false;
                else if (blocked_by.empty() && !passed(required)) blocked_by = required;
            }
        if (!is_ready) continue;
        if (blocked_by.empty()) plan.ready.insert(id);
        else plan.not_counted[id] = blocked_by;
    }
    // A cycle of requirements (a config error) must not loop forever: what is left runs together.
    if (plan.ready.empty() && plan.not_counted.empty()) plan.ready = waiting;
    plan.timed = std::any_of(plan.ready.begin(), plan.ready.end(), [&](const std::string& id) { return timed_ids.count(id) > 0; });
    return plan;
}

}  // namespace gpulab::runner
