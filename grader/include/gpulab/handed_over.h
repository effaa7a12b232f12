// What gpulab-grade tells a grader process about the tests of the same grading decided before it started: their
// outcomes and a few of their properties (issue 43). The GPU's timing process needs CPU execution mode's count of
// the timed launches (counted_work.h), and the tests that run after the timed wave need the counters of the timed
// samples it drew (gpu_profile.h). Both were made in other processes; gpulab-grade read them from its signed result
// channel and hands them over in the handshake (result_channel.h), before the student's library is loaded.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace gpulab {

// The properties handed over, by name: what later processes of a grading read.
inline constexpr const char* kHandedOverProperties[] = {"timed_count", "drawn_counters", "drawn_counters_unavailable",
                                                       "timed_launches", "access_figures"};

// {"outcomes": {"<test id>": {"result": "passed"|"failed"|..., "not_run_because": "..."}},
//  "properties": {"<name>": ["<value recorded by one test>", ...]}}; an empty object where nothing was handed over.
const nlohmann::json& handed_over();
void set_handed_over(nlohmann::json j);

// Every value of a handed-over property (each test's, in the order the tests were decided).
std::vector<std::string> handed_over_property(const std::string& name);

// A decided test's outcome: "" where it was not handed over (not decided before this process, or unknown).
std::string handed_over_result(const std::string& test_id);
std::string handed_over_not_run_because(const std::string& test_id);

}  // namespace gpulab
