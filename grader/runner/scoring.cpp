#include "scoring.h"

#include <algorithm>
#include <map>

namespace gpulab::runner {
namespace {

bool is_todo(const TestOutcome& outcome) {
    for (const std::string& m : outcome.messages)
        if (m.find("TODO(lab-") != std::string::npos) return true;
    return false;
}

std::string property(const TestOutcome& outcome, const char* key) {
    return outcome.properties.contains(key) ? outcome.properties.at(key).get<std::string>() : "";
}

// GoogleTest's wording around a message, rewritten for a student: "Failed" lines dropped, an
// escaped exception unwrapped, and a TODO said once however many checks ran into it.
std::vector<std::string> student_facing(const std::vector<std::string>& messages) {
    static const std::string exception_head = "C++ exception with description \"";
    static const std::string exception_tail = "\" thrown in the test body.";
    std::vector<std::string> out;
    for (std::string m : messages) {
        if (m.rfind("Failed\n", 0) == 0) m = m.substr(7);
        if (m.rfind(exception_head, 0) == 0) {
            m = m.substr(exception_head.size());
            if (const auto tail = m.rfind(exception_tail); tail != std::string::npos) m = m.substr(0, tail);
            if (m.find("TODO(lab-") == std::string::npos) m = "Your code threw an exception: " + m;
        }
        if (const auto todo = m.find("TODO(lab-"); todo != std::string::npos) m = m.substr(todo);
        if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
    }
    return out;
}

// "Sizes/Step.MatchesOracle/M33_r0p25" -> "M33_r0p25": the case, for a list of failing ones.
std::string instance_name(const std::string& name) {
    const auto dot = name.find('.');
    const auto slash = name.find('/', dot == std::string::npos ? 0 : dot);
    return slash == std::string::npos ? name : name.substr(slash + 1);
}

// A test not counted because a test it requires did not pass: that test, and whether this one ran anyway.
struct NotCounted {
    std::string until;
    bool ran = false;
};

std::string joined(const std::vector<std::string>& items, const std::string& comma = ", ") {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : comma) + item;
    return out;
}

// Why the tests not counted are not, said once after their lines.
std::string why_not_counted(const std::vector<std::string>& not_run, std::size_t not_counted) {
    const std::string why = "Speed and technique count only for code that is right first";
    if (not_run.empty()) return why + ".";
    if (not_run.size() == not_counted) return why + (not_counted == 1 ? ", so it was not run." : ", so they were not run.");
    return why + " (" + joined(not_run, " and ") + (not_run.size() == 1 ? " was" : " were") + " not run).";
}

// LabScore::feedback from the tests' scores (in lab.json's order) and the tests not counted.
std::vector<Feedback> ordered_feedback(const nlohmann::json& config, const std::vector<IdScore>& ids,
                                       const std::map<std::string, NotCounted>& not_counted) {
    // A test not counted is named under the failure at the root of what it waits on (a technique check held back
    // by a wrong kernel holds back the speed test that requires it, for the same cause).
    const auto root_cause = [&](std::string id) {
        for (std::size_t hops = 0; not_counted.count(id) && hops <= not_counted.size(); ++hops) id = not_counted.at(id).until;
        return id;
    };
    std::map<std::string, std::vector<std::string>> waiting_on, named_under;
    std::vector<std::string> causes, not_run;
    for (const nlohmann::json& test : config.at("tests")) {
        const std::string id = test.at("id");
        const auto found = not_counted.find(id);
        if (found == not_counted.end()) continue;
        const std::string cause = root_cause(id);
        if (!named_under.count(cause)) causes.push_back(cause);
        named_under[cause].push_back(id);
        if (!found->second.ran) not_run.push_back(id);
        // Each failed test it requires is one to fix first, the named cause among them.
        std::vector<std::string> required = test.value("requires", std::vector<std::string>{});
        required.push_back(cause);
        for (const std::string& r : required) {
            std::vector<std::string>& waiting = waiting_on[r];
            if (std::find(waiting.begin(), waiting.end(), id) == waiting.end()) waiting.push_back(id);
        }
    }
    // One line per cause, in lab.json's order of the causes.
    const auto position = [&](const std::string& id) {
        const auto at = std::find_if(ids.begin(), ids.end(), [&](const IdScore& s) { return s.id == id; });
        return at - ids.begin();
    };
    std::stable_sort(causes.begin(), causes.end(), [&](const std::string& a, const std::string& b) { return position(a) < position(b); });
    std::vector<Feedback> feedback;
    for (const bool first : {true, false})
        for (const IdScore& s : ids) {
            if (s.details.empty() || not_counted.count(s.id)) continue;
            const auto waiting = waiting_on.find(s.id);
            if ((waiting != waiting_on.end()) != first) continue;
            feedback.push_back({first ? Feedback::Kind::fix_first : Feedback::Kind::failure, s.id,
                                first ? waiting->second : std::vector<std::string>{}, s.details});
        }
    for (const std::string& cause : causes)
        feedback.push_back({Feedback::Kind::not_counted, cause, named_under[cause],
                            {"Not counted until " + cause + " passes: " + joined(named_under[cause])}});
    if (!causes.empty())
        feedback.push_back({Feedback::Kind::why_not_counted, "", {}, {why_not_counted(not_run, not_counted.size())}});
    return feedback;
}

IdScore empty_score(const nlohmann::json& test) {
    IdScore s;
    s.id = test.at("id");
    s.what = test.value("what", "");
    s.max_points = test.at("points");
    return s;
}

}  // namespace

const char* feedback_kind_word(Feedback::Kind kind) {
    switch (kind) {
        case Feedback::Kind::fix_first: return "fix_first";
        case Feedback::Kind::failure: return "failure";
        case Feedback::Kind::not_counted: return "not_counted";
        case Feedback::Kind::why_not_counted: return "why_not_counted";
    }
    return "";
}

namespace {

using OutcomesById = std::map<std::string, std::vector<const TestOutcome*>>;

// Per id: passed when at least one instance ran and none failed; failed when one that ran did not pass. A test
// that could not measure here (the GPU's counters unreadable: it recorded skip_holds_back "no") holds back nothing:
// what requires it counts as if it had passed, on the verdicts of the tests that did run.
struct IdVerdicts {
    std::map<std::string, bool> passed, failed;
};
IdVerdicts id_verdicts(const OutcomesById& by_id) {
    IdVerdicts v;
    for (const auto& [id, outcomes] : by_id) {
        int ran = 0, bad = 0, unmeasured = 0;
        for (const TestOutcome* outcome : outcomes) {
            if (outcome->result == "skipped") {
                unmeasured += outcome->properties.value("skip_holds_back", std::string()) == "no";
                continue;
            }
            ++ran;
            bad += outcome->result != "passed";
        }
        v.passed[id] = (ran > 0 && bad == 0) || (ran == 0 && unmeasured > 0);
        v.failed[id] = bad > 0;
    }
    return v;
}

// A test none of whose instances ran: why, from what the runner left out, else the test's own skip message.
void score_not_run(IdScore& s, const TestOutcome& shown) {
    s.verdict = "not run";
    s.measured = shown.properties.value("not_run_because", std::string());
    if (s.measured.empty() && !shown.messages.empty()) {
        s.measured = student_facing(shown.messages).front();
        s.measured = s.measured.substr(0, s.measured.find('\n'));
    }
    if (s.measured.empty()) s.measured = "not run";
}

// A test some of whose instances ran: its points and verdict, and the cases that failed.
void score_ran(IdScore& s, const nlohmann::json& test, const std::vector<const TestOutcome*>& outcomes,
               const TestOutcome& shown, bool todo) {
    // lab.json's "credit" per test: "all_or_nothing" (the default: a kernel that is wrong at one
    // size is wrong) or "proportional" (each instance earns its share, for instances that are
    // separate pieces of work, such as the same check of two different kernels).
    const bool proportional = test.value("credit", std::string("all_or_nothing")) == "proportional";
    s.points = s.failed > 0 && !proportional ? 0.0 : s.max_points * s.passed / s.total;
    // Cases decided without running (a time limit or a lost context: test_session.cpp) count as failed, but
    // are named apart: a case of another kernel that never ran must not read as one that failed.
    std::string cases, why_not_run;
    int not_run = 0;
    for (const TestOutcome* outcome : outcomes) {
        if (outcome->result == "passed" || outcome->result == "skipped") continue;
        const std::string why = outcome->properties.value("decided_with", std::string());
        if (why.empty())
            cases += (cases.empty() ? "" : ", ") + instance_name(outcome->name);
        else if (not_run++ == 0)
            why_not_run = why;
    }
    const int ran_and_failed = s.failed - not_run;
    if (s.failed > 1)
        s.details.push_back(std::to_string(ran_and_failed) + " of " + std::to_string(s.total) + " cases of " + s.id +
                            " failed: " + cases +
                            (not_run ? ". " + std::to_string(not_run) + " more did not run: " + why_not_run : ""));
    if (s.failed > 0 && s.passed > 0)
        s.details.push_back(proportional ? s.id + " gives credit per case that passes."
                                         : s.id + " is all or nothing: it scores once every case passes.");
    if (s.failed == 0) s.verdict = s.total > 1 ? std::to_string(s.passed) + "/" + std::to_string(s.total) + " passed" : "passed";
    else if (todo) s.verdict = "not written yet";
    else if (shown.result == "timeout") s.verdict = "timed out";
    else if (shown.result == "crashed") s.verdict = "crashed";
    else s.verdict = std::to_string(ran_and_failed) + "/" + std::to_string(s.total) + " failed" +
                     (not_run ? ", " + std::to_string(not_run) + " not run" : "");
}

// Performance counts only for correct code. A test that skipped itself because what it requires failed (a
// technique check that waits for a correct kernel) is not counted either: its points are lost, not waiting for a
// GPU, so they stay out of points_not_run. Returns the required test that holds it back ("" where none does).
std::string hold_back_for_requires(IdScore& s, const nlohmann::json& test, const TestOutcome& shown, int ran,
                                   const IdVerdicts& verdicts) {
    const std::string not_run_because = shown.properties.value("not_run_because", std::string());
    const bool skipped_itself = ran == 0 && not_run_because.empty();
    // gpulab-grade runs a test that requires others after them, and not at all once one has failed.
    const bool held_back = ran == 0 && not_run_because.rfind("not counted: ", 0) == 0;
    for (const auto& required : test.value("requires", std::vector<std::string>{})) {
        const bool passed = verdicts.passed.count(required) && verdicts.passed.at(required);
        const bool failed = verdicts.failed.count(required) && verdicts.failed.at(required);
        if ((ran > 0 && !passed) || ((skipped_itself || held_back) && failed)) {
            s.points = 0;
            s.verdict = "not counted";
            s.details = {};
            s.details.push_back(s.id + " is not counted until " + required +
                                " passes: speed and technique count only for code that is right first" +
                                (held_back ? " (so it was not run)." : "."));
            return required;
        }
    }
    // lab.json "confirmed_by": a test decided after this one that says whether what this one measured is what was
    // timed (Technique.SameWorkOnGpu compares the speed tests' drawn samples with CPU execution mode's count, which
    // may end after the speed tests: test_waves.cpp). Where it failed, the timed launches did other work than the
    // counted ones: neither the speed nor the technique measured counts.
    for (const auto& confirming : test.value("confirmed_by", std::vector<std::string>{})) {
        if (ran == 0 || !verdicts.failed.count(confirming) || !verdicts.failed.at(confirming)) continue;
        s.points = 0;
        s.verdict = "not counted";
        s.details = {s.id + " is not counted: " + confirming + " found timed samples drawn at random doing other work " +
                     "than the launch CPU execution mode counted, so what this test measured is not the work that was timed."};
        return confirming;
    }
    return "";
}

}  // namespace

LabScore score_lab(const nlohmann::json& config, const SessionResult& session) {
    LabScore lab;
    lab.lab = config.at("lab");
    lab.title = config.value("title", lab.lab);
    OutcomesById by_id;
    for (const TestOutcome& outcome : session.tests) by_id[outcome.id].push_back(&outcome);
    const IdVerdicts verdicts = id_verdicts(by_id);
    std::map<std::string, NotCounted> not_counted;
    for (const nlohmann::json& test : config.at("tests")) {
        IdScore s = empty_score(test);
        const auto found = by_id.find(s.id);
        if (found == by_id.end()) {
            // Under --filter (debugging one test) the others were left out on purpose: no grader problem.
            if (!session.filtered)
                lab.problems.push_back("the config gives points to " + s.id + ", but the grader has no such test");
            s.verdict = session.filtered ? "left out (--filter)" : "missing";
            lab.ids.push_back(s);
            lab.max_points += s.max_points;
            continue;
        }
        const TestOutcome* shown = nullptr;  // the first failure, else the last instance
        bool todo = false;
        for (const TestOutcome* outcome : found->second) {
            ++s.total;
            if (outcome->result == "passed") {
                ++s.passed;
            } else if (outcome->result == "skipped") {
                ++s.skipped;
            } else {
                ++s.failed;
                todo = todo || is_todo(*outcome);
                if (!shown) {
                    shown = outcome;
                    std::string text = outcome->name + " " + outcome->result + ":";
                    for (const std::string& m : student_facing(outcome->messages)) text += "\n" + m;
                    s.details.push_back(text);
                }
            }
        }
        if (!shown) shown = found->second.back();
        s.measured = property(*shown, "measured");
        s.properties = shown->properties;
        s.threshold = property(*shown, "threshold");
        const int ran = s.total - s.skipped;
        if (ran == 0) {
            score_not_run(s, *shown);
            lab.points_not_run += s.max_points;
        } else {
            score_ran(s, test, found->second, *shown, todo);
        }
        if (const std::string required = hold_back_for_requires(s, test, *shown, ran, verdicts); !required.empty()) {
            if (ran == 0) lab.points_not_run -= s.max_points;
            not_counted[s.id] = {required, ran > 0};
        }
        lab.points += s.points;
        lab.max_points += s.max_points;
        lab.ids.push_back(s);
        by_id.erase(found);
    }
    for (const auto& [id, outcomes] : by_id)
        lab.problems.push_back("the grader's test " + id + " has no entry in the config, so it is worth no points");
    lab.feedback = ordered_feedback(config, lab.ids, not_counted);
    return lab;
}

namespace {

// Every test listed with its points lost and one verdict: for a lab none of whose tests could count.
LabScore all_points_lost(const nlohmann::json& config, const std::string& verdict) {
    LabScore lab;
    lab.lab = config.at("lab");
    lab.title = config.value("title", lab.lab);
    for (const nlohmann::json& test : config.at("tests")) {
        IdScore s = empty_score(test);
        s.verdict = verdict;
        lab.max_points += s.max_points;
        lab.ids.push_back(s);
    }
    return lab;
}

}  // namespace

LabScore score_not_admitted(const nlohmann::json& config, const AdmissionVerdict& verdict) {
    LabScore lab = all_points_lost(config, admission_word(verdict.admission));
    lab.admission = verdict;
    return lab;
}

}  // namespace gpulab::runner
