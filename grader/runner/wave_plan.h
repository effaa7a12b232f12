// Which of a lab's tests run next. A test that requires others runs once they are decided, and not at all
// ("not counted") when one of them did not pass, so a wrong kernel costs no time at the timed sizes. Timed
// tests (speed, timed reports) wait until every untimed test is decided or running beside (below) and then run
// together: their wave has the GPU to itself, while an untimed wave may run its GPU and CPU execution parts side
// by side.
//
// Running beside: CPU execution mode's tests of a GPU grading (the read counts the speed tests require, seconds
// each) run in a session of their own that the waves after it do not wait for; they use no GPU. A timed test that
// requires one of them starts while it runs, and is not counted afterwards where it did not pass (scoring.cpp:
// a test that ran while what it requires failed scores nothing). An untimed test waits for them to be decided.
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
    // Nothing can run until a test running beside is decided: the caller waits for it and plans again.
    bool wait_for_running = false;
};

// `waiting`: the ids not yet decided; `requires_of`: lab.json's "requires"; `timed_ids`: the tests lab.json
// marks "timing"; `passed(id)`: whether a decided test lets its dependants run; `after_of`: lab.json's "after", tests
// a test runs after whatever their verdict (it reads what they handed over: handed_over.h). An untimed test after a
// timed one runs once the timed wave is done. `running`: the tests started beside the waves and not yet decided
// (neither waiting nor passed to `passed`).
WavePlan plan_wave(const std::set<std::string>& waiting, const std::map<std::string, std::vector<std::string>>& requires_of,
                   const std::set<std::string>& timed_ids, const std::function<bool(const std::string&)>& passed,
                   const std::map<std::string, std::vector<std::string>>& after_of = {},
                   const std::set<std::string>& running = {});

}  // namespace gpulab::runner
