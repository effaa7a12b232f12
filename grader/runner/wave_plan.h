// Which of a lab's tests run next. A test that requires others runs once they are decided, and not at all
// ("not counted") when one of them did not pass, so a wrong kernel costs no time at the timed sizes. Timed
// tests (speed, timed reports) wait until every untimed test is decided and then run together: their wave
// has the machine to itself, while an untimed wave may run its GPU and CPU execution parts side by side.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace gpulab::runner {

struct WavePlan {
    std::set<std::string> ready;                     // run in this wave
    std::map<std::string, std::string> not_counted;  // never run: id -> the required test that did not pass
    bool timed = false;                              // a timed test is among `ready`
};

// `waiting`: the ids not yet decided; `requires_of`: lab.json's "requires"; `timed_ids`: the tests lab.json
// marks "timing"; `passed(id)`: whether a decided test lets its dependants run; `after_of`: lab.json's "after", tests
// a test runs after whatever their verdict (it reads what they handed over: handed_over.h). An untimed test after a
// timed one runs once the timed wave is done.
WavePlan plan_wave(const std::set<std::string>& waiting, const std::map<std::string, std::vector<std::string>>& requires_of,
                   const std::set<std::string>& timed_ids, const std::function<bool(const std::string&)>& passed,
                   const std::map<std::string, std::vector<std::string>>& after_of = {});

}  // namespace gpulab::runner
