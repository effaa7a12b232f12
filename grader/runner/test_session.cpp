#include "test_session.h"

#include "result_reader.h"

#include "gpulab/result_channel.h"
#include "gpulab/test_id.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

namespace gpulab::runner {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The big-field tests fill and read host arrays of hundreds of megabytes, each freshly allocated: with 4 KiB
// pages a 0.5 GB vector costs about 130,000 page faults (0.3 to 1 s on an H100 host) before a byte of work.
// glibc's malloc.hugetlb=1 asks for transparent huge pages on its large blocks (where the kernel's THP mode is
// "madvise" or "always"; elsewhere, and on a glibc older than 2.35, it changes nothing). Measured on an H100
// host: lab 04's reference graded in 19 s instead of 25. An instructor's own tunables are kept.
std::string with_huge_pages(const char* tunables) {
    const std::string own = tunables ? tunables : "";
    if (own.find("glibc.malloc.hugetlb") != std::string::npos) return own;
    return own.empty() ? "glibc.malloc.hugetlb=1" : own + ":glibc.malloc.hugetlb=1";
}

// Nothing secret goes here: the student's code runs in the child and may read its environment. The
// solution libraries and the result channel's key travel on the handshake pipe instead.
std::map<std::string, std::string> child_env(const SessionSpec& spec) {
    std::map<std::string, std::string> env{{"GPULAB_LAB_CONFIG", spec.config},
                                           {"GPULAB_ARTIFACT_DIR", (fs::path(spec.work_dir) / "artifacts").string()}};
    if (!spec.seed.empty()) env["GPULAB_SEED"] = spec.seed;
    if (spec.test_timeout_s) {
        env["GPULAB_TEST_TIMEOUT_S"] = std::to_string(spec.test_timeout_s);
        std::string ids;
        for (const std::string& id : spec.test_timeout_ids) ids += (ids.empty() ? "" : ",") + id;
        if (!ids.empty()) env["GPULAB_TEST_TIMEOUT_IDS"] = ids;
    }
    if (!spec.cache_dir.empty()) env["GPULAB_CACHE_DIR"] = spec.cache_dir;
    if (!spec.plot_queue.empty()) env["GPULAB_PLOT_QUEUE"] = spec.plot_queue;
    env["GLIBC_TUNABLES"] = with_huge_pages(std::getenv("GLIBC_TUNABLES"));
    for (const auto& [name, value] : spec.env) env[name] = value;
    return env;
}

// Parses `--gtest_list_tests`: suites flush left ending in '.', tests indented, comments after '#'.
std::vector<std::string> parse_test_list(const std::string& text) {
    std::vector<std::string> names;
    std::istringstream in(text);
    std::string line, suite;
    while (std::getline(in, line)) {
        if (const auto hash = line.find('#'); hash != std::string::npos) line = line.substr(0, hash);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
        if (line.empty()) continue;
        if (line[0] != ' ') {
            suite = line;
        } else {
            names.push_back(suite + line.substr(line.find_first_not_of(' ')));
        }
    }
    return names;
}

// An outcome decided without running: `result`, the student's message "not run: <why>", and <why> as the property
// "decided_with" (scoring.cpp says how many of a test's failed cases did not run, and why).
TestOutcome decided_without_running(const std::string& name, const std::string& result, const std::string& why) {
    TestOutcome outcome{name, test_id_of(name), result, {"not run: " + why}};
    outcome.properties["decided_with"] = why;
    return outcome;
}

// The cases of `decided_case`'s test still to run are decided with it, as `result`, for the reason `why`.
void skip_other_cases(std::set<std::string>& remaining, std::map<std::string, TestOutcome>& outcomes,
                      const std::string& decided_case, const std::string& why, const std::string& result) {
    const std::string id = test_id_of(decided_case);
    for (auto it = remaining.begin(); it != remaining.end();) {
        if (*it != decided_case && test_id_of(*it) == id) {
            outcomes[*it] = decided_without_running(*it, result, why);
            it = remaining.erase(it);
        } else {
            ++it;
        }
    }
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> list_tests(const SessionSpec& spec, std::string* error) {
    const fs::path log = fs::path(spec.work_dir) / "list.log";
    fs::remove(log);
    std::vector<std::string> argv{spec.grader, "--gtest_list_tests"};
    if (!spec.filter.empty()) argv.push_back("--gtest_filter=" + spec.filter);
    const auto started = Clock::now();
    const ExitStatus status = run_child({argv, child_env(spec), log.string()},
                                        [&] { return Clock::now() - started < std::chrono::seconds(60); });
    const std::string output = read_file(log);
    if (!status.exited || status.code != 0) {
        *error = "the grader binary could not list its tests (" + status.describe() + "):\n" + output;
        return {};
    }
    return parse_test_list(output);
}

// The tests a session runs: the grader's list (or the one the spec carries), narrowed to spec.only_ids; those
// spec.left_out names are recorded as skipped with the reason, the rest returned as `remaining`.
std::vector<std::string> tests_of_session(const SessionSpec& spec, SessionResult& result, std::set<std::string>& remaining,
                                          std::map<std::string, TestOutcome>& outcomes) {
    std::vector<std::string> all;
    if (spec.listed && !spec.listed->empty()) {
        all = *spec.listed;
    } else {
        all = list_tests(spec, &result.error);
        if (!result.error.empty()) return {};
        if (spec.listed) *spec.listed = all;
    }
    if (!spec.only_ids.empty())
        std::erase_if(all, [&](const std::string& name) { return !spec.only_ids.count(test_id_of(name)); });
    for (const std::string& name : all) {
        const auto out = spec.left_out.find(test_id_of(name));
        if (out == spec.left_out.end()) {
            remaining.insert(name);
            continue;
        }
        TestOutcome outcome{name, out->first, "skipped", {out->second}};
        outcome.properties["not_run_because"] = out->second;
        outcomes[name] = outcome;
    }
    return all;
}

// What one grader process said on the result channel, event by event.
struct ProcessEvents {
    SessionResult& result;
    std::map<std::string, TestOutcome>& outcomes;
    std::set<std::string>& remaining;
    std::ofstream& progress_copy;  // the accepted events, for a person to read
    std::string running;                           // the test that started and has not ended
    std::string lost_context, lost_context_error;  // the test after which the process gave up its CUDA context
    bool timed_out = false;
    unsigned limit_s = 0;
    Clock::time_point last_progress = Clock::now();

    void absorb(const std::vector<nlohmann::json>& events) {
        for (const nlohmann::json& event : events) {
            progress_copy << event.dump() << "\n";
            last_progress = Clock::now();
            const std::string kind = event.value("event", "");
            if (kind == "device") {
                result.device = event;
                result.seed = event.value("seed", "");
            } else if (kind == "start") {
                running = event.at("test");
            } else if (kind == "end") {
                TestOutcome outcome;
                outcome.name = event.at("test");
                outcome.id = test_id_of(outcome.name);
                outcome.result = event.at("result");
                outcome.messages = event.at("messages").get<std::vector<std::string>>();
                outcome.properties = event.at("properties");
                outcome.ms = event.value("ms", 0.0);
                outcomes[outcome.name] = outcome;
                remaining.erase(outcome.name);
                running.clear();
            } else if (kind == "timeout") {
                timed_out = true;
                limit_s = event.value("limit_s", 0u);
            } else if (kind == "context_lost") {
                lost_context = event.value("test", "");
                lost_context_error = event.value("error", "");
            }
        }
        progress_copy.flush();
    }
};

// One grader process, started with a fresh channel key and the handshake on its descriptor 3, its results read from
// descriptor 4 while it runs; its exit status. Throws where the pipes cannot be made.
ExitStatus run_grader_process(const SessionSpec& spec, const std::set<std::string>& remaining, const std::string& junit,
                              const std::string& log, ProcessEvents& events, std::unique_ptr<ResultReader>& reader) {
    std::string filter;
    for (const std::string& name : remaining) filter += (filter.empty() ? "" : ":") + name;
    // A fresh key per process: an event of one process cannot be replayed in another.
    int handshake[2], results[2];
    if (::pipe2(handshake, O_CLOEXEC) != 0 || ::pipe2(results, O_CLOEXEC) != 0)
        throw std::runtime_error("cannot create the grader's pipes");
    constexpr int kHandshakeFd = 3, kResultFd = 4;
    GraderHandshake hello{random_channel_key(), kResultFd, spec.student_library, spec.reference_library,
                          spec.companion_references, spec.handed_over};
    const std::string hello_text = hello.to_json();
    // Written in full before the child starts reading, so the pipe must hold it: the handed-over results (the
    // drawn samples' counters of a lab's timed launches, tens of KiB) can pass the default 64 KiB.
    const int capacity = ::fcntl(handshake[1], F_SETPIPE_SZ, 1 << 20);
    if (hello_text.size() > std::size_t(capacity > 0 ? capacity : 65536))
        throw std::runtime_error("the handshake for the grader (" + std::to_string(hello_text.size()) +
                                 " bytes) does not fit its pipe");
    [[maybe_unused]] const auto sent = ::write(handshake[1], hello_text.data(), hello_text.size());
    ::close(handshake[1]);
    reader = std::make_unique<ResultReader>(results[0], hello.key, remaining);
    std::vector<std::string> argv{spec.grader, "--gpulab_handshake_fd=" + std::to_string(kHandshakeFd),
                                  "--gtest_filter=" + filter, "--gtest_output=xml:" + junit};
    ChildSpec child{argv, child_env(spec), log, {{handshake[0], kHandshakeFd}, {results[1], kResultFd}}};
    ExitStatus status;
    try {
        status = run_child(child, [&] {
            events.absorb(reader->poll());
            return !reader->tampered() && Clock::now() - events.last_progress < std::chrono::seconds(spec.watchdog_s);
        });
    } catch (...) {
        ::close(handshake[0]);
        ::close(results[1]);
        throw;
    }
    ::close(handshake[0]);
    ::close(results[1]);
    events.absorb(reader->finish(status));
    return status;
}

// After a process ended: the test it was running when it ended (a time limit, a crash), the cases decided with it,
// and what remains for the next process. `hangs` counts the tests that hit their time limit so far.
void settle_process_end(const SessionSpec& spec, const ExitStatus& status, const ProcessEvents& events,
                        std::size_t left_before, unsigned& hangs, std::set<std::string>& remaining,
                        std::map<std::string, TestOutcome>& outcomes) {
    const std::string& running = events.running;
    if (!events.lost_context.empty() && !spec.credit_per_case_ids.count(test_id_of(events.lost_context)))
        skip_other_cases(remaining, outcomes, events.lost_context,
                         events.lost_context + ", a case of the same test, left the CUDA context unusable (" +
                             events.lost_context_error + "), and the test scores nothing once a case fails, so its "
                             "other cases were not run (each would need a fresh process): fix that case first",
                         "failed");
    if (!running.empty()) {
        TestOutcome outcome;
        outcome.name = running;
        outcome.id = test_id_of(running);
        if (events.timed_out || status.killed_by_watchdog) {
            ++hangs;
            outcome.result = "timeout";
            outcome.messages.push_back(
                "The test did not finish within its time limit" +
                (events.limit_s ? " (" + std::to_string(events.limit_s) + " s)" : std::string()) +
                " and was stopped. A kernel that never ends "
                "(a loop whose exit condition is never met, or threads waiting at a __syncthreads() that "
                "others never reach) or a host loop that runs far too many steps does this.");
            // The other instances of this test would most likely hang the same way: one time limit
            // per test, not one per instance, so an endless loop cannot hold grading up for long.
            skip_other_cases(remaining, outcomes, running, running + ", a case of the same test, hit the time limit",
                             "timeout");
        } else {
            outcome.result = "crashed";
            outcome.messages.push_back("The test process died (" + status.describe() +
                                       ") while running this test; see tests.log. Out-of-bounds "
                                       "host accesses and null pointers do this.");
        }
        outcomes[running] = outcome;
        remaining.erase(running);
        if (spec.max_hangs && hangs >= spec.max_hangs) {
            for (const std::string& name : remaining)
                outcomes[name] = decided_without_running(name, "timeout",
                                                         std::to_string(hangs) + " tests of this lab already hit "
                                                         "their time limit (a kernel or loop that never ends); fix "
                                                         "that first");
            remaining.clear();
        }
    } else if (!remaining.empty() && (remaining.size() == left_before || !(status.exited && status.code == 3))) {
        // The process ended between tests without a lost context: nothing more will run.
        for (const std::string& name : remaining) {
            TestOutcome outcome{name, test_id_of(name), "crashed", {}};
            outcome.messages.push_back("not run: the grader process ended early (" + status.describe() +
                                       "); see tests.log");
            outcomes[name] = outcome;
        }
        remaining.clear();
    }
}

}  // namespace

SessionResult run_session(const SessionSpec& spec) {
    fs::create_directories(spec.work_dir);
    SessionResult result;
    result.filtered = !spec.filter.empty();
    std::set<std::string> remaining;
    std::map<std::string, TestOutcome> outcomes;
    const std::vector<std::string> all = tests_of_session(spec, result, remaining, outcomes);
    if (!result.error.empty()) return result;
    const fs::path progress = fs::path(spec.work_dir) / "progress.jsonl";
    const fs::path log = fs::path(spec.work_dir) / "tests.log";
    if (!spec.continues) {
        fs::remove(progress);
        fs::remove(log);
        // Pictures and CSVs from an earlier run would mislead: each run starts with none.
        fs::remove_all(fs::path(spec.work_dir) / "artifacts");
    }
    std::ofstream progress_copy(progress, std::ios::app);  // the accepted events, for a person to read

    // A process runs the remaining tests until one ends it (a crash, a time limit, a lost context); a fresh one
    // carries on with what is left.
    unsigned hangs = 0;
    while (!remaining.empty()) {
        ++result.processes;
        const std::size_t left_before = remaining.size();
        const std::string junit =
            (fs::path(spec.work_dir) / ("junit-" + spec.part_label + std::to_string(result.processes) + ".xml")).string();
        ProcessEvents events{result, outcomes, remaining, progress_copy};
        std::unique_ptr<ResultReader> reader;
        const ExitStatus status = run_grader_process(spec, remaining, junit, log.string(), events, reader);
        if (reader->tampered()) {
            result.tampering = reader->tampering();
            return result;
        }
        if (status.exited && !reader->heard_anything()) {
            result.error = "the grader process ended before it reported anything (" + status.describe() +
                           "); see " + log.string();
            return result;
        }
        settle_process_end(spec, status, events, left_before, hangs, remaining, outcomes);
    }
    for (const std::string& name : all) result.tests.push_back(outcomes.at(name));
    return result;
}

}  // namespace gpulab::runner
