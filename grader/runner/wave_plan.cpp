#include "wave_plan.h"

#include <algorithm>

namespace gpulab::runner {

WavePlan plan_wave(const std::set<std::string>& waiting, const std::map<std::string, std::vector<std::string>>& requires_of,
                   const std::set<std::string>& timed_ids, const std::function<bool(const std::string&)>& passed,
                   const std::map<std::string, std::vector<std::string>>& after_of,
                   const std::set<std::string>& running) {
    WavePlan plan;
    auto listed = [](const std::map<std::string, std::vector<std::string>>& of, const std::string& id) {
        const auto found = of.find(id);
        return found == of.end() ? std::vector<std::string>{} : found->second;
    };
    // An untimed test that waits for a timed one (Technique.SameWorkOnGpu after the speed tests) runs after the timed
    // wave: it does not hold the timed tests back.
    auto waits_for_timed = [&](const std::string& id) {
        for (const auto* of : {&requires_of, &after_of})
            for (const std::string& other : listed(*of, id))
                if (waiting.count(other) && timed_ids.count(other)) return true;
        return false;
    };
    const bool untimed_waiting = std::any_of(waiting.begin(), waiting.end(), [&](const std::string& id) {
        return !timed_ids.count(id) && !waits_for_timed(id);
    });
    for (const std::string& id : waiting) {
        if (untimed_waiting && timed_ids.count(id)) continue;
        bool is_ready = true;
        std::string blocked_by;
        for (const std::string& required : listed(requires_of, id)) {
            // A timed test starts beside a required test still running (its verdict applies afterwards, in
            // scoring); an untimed one waits for the verdict.
            if (waiting.count(required) || (running.count(required) && !timed_ids.count(id))) is_ready = false;
            else if (!running.count(required) && blocked_by.empty() && !passed(required)) blocked_by = required;
        }
        // "after": ordering only; the test runs whatever the verdict of the tests it follows.
        for (const std::string& before : listed(after_of, id))
            if (waiting.count(before) || running.count(before)) is_ready = false;
        if (!is_ready) continue;
        if (blocked_by.empty()) plan.ready.insert(id);
        else plan.not_counted[id] = blocked_by;
    }
    if (plan.ready.empty() && plan.not_counted.empty() && !running.empty()) {
        plan.wait_for_running = true;
        return plan;
    }
    // A cycle of requirements (a config error) must not loop forever: what is left runs together.
    if (plan.ready.empty() && plan.not_counted.empty()) plan.ready = waiting;
    plan.timed = std::any_of(plan.ready.begin(), plan.ready.end(), [&](const std::string& id) { return timed_ids.count(id) > 0; });
    return plan;
}

}  // namespace gpulab::runner
