// The read side of counted_work.h: CPU execution mode's count of a timed launch, as gpulab-grade handed it over.
#include "gpulab/counted_work.h"

#include "gpulab/handed_over.h"

namespace gpulab {

bool counted_work(const std::string& suite, const std::string& instance, CountedWork& out, std::string* why) {
    const std::string key = counted_work_key(suite, instance);
    for (const std::string& text : handed_over_property("timed_count")) {
        const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
        if (j.is_object() && j.contains(key)) {
            out = counted_work_of(j.at(key));
            return true;
        }
    }
    if (why)
        *why = "CPU execution mode's count of " + key +
               " was not handed over: the lab's counted technique test did not count it in this grading (it did not "
               "run, or CPU execution mode is not built here)";
    return false;
}

}  // namespace gpulab
