// Runs every test of one lab's grader binary against one solution, each test's crash or hang
// costing only that test: when the process dies, a fresh one continues with the tests left.
#pragma once

#include "child_process.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace gpulab::runner {

struct TestOutcome {
    std::string name;  // GoogleTest's full name
    std::string id;    // the config id it counts for
    std::string result;  // passed, failed, skipped, crashed, timeout
    std::vector<std::string> messages;
    nlohmann::json properties = nlohmann::json::object();
    double ms = 0;
};

struct SessionResult {
    std::vector<TestOutcome> tests;
    nlohmann::json device;  // as the grader binary reported it (empty if it never started)
    std::string seed;
    bool filtered = false;  // a --filter narrowed it: a test it did not run was left out, not lost
    int processes = 0;      // how many grader processes it took
    std::string error;      // set when the binary could not even list its tests, or start them
    // Set when the result channel carried something the grader did not write (result_reader.h): what
    // was wrong. None of this run's results count then.
    std::string tampering;
};

struct SessionSpec {
    std::string grader;            // the lab's grader binary
    std::string config;            // its lab.json
    std::string student_library;   // handed to the grader on its handshake pipe
    std::string reference_library;
    std::map<std::string, std::string> companion_references;  // other labs' references, by lab (lab.json "companions")
    std::string work_dir;          // logs, progress and JUnit files go here
    std::string seed;              // GPULAB_SEED; empty: let the binary draw one
    std::string filter;            // a GoogleTest filter to narrow the run; empty: all
    std::string cache_dir;         // GPULAB_CACHE_DIR: reports' figures kept per machine (report_cache.h)
    // What tests decided before this session tell it (handed_over.h): handed to each of its processes.
    nlohmann::json handed_over = nlohmann::json::object();
    std::string plot_queue;        // GPULAB_PLOT_QUEUE: where pictures are asked for (plot_queue.h); empty: drawn in the test
    // Test ids (lab.json) left out of this session, each with the reason it is reported "not run";
    // or, when `only_ids` is not empty, the only ids it runs.
    std::map<std::string, std::string> left_out;
    std::set<std::string> only_ids;
    // The binary's test names (--gtest_list_tests under `filter`), shared by the sessions of one grading: a
    // listing is a process start (the lab 07 grader loads cuBLAS), and the list does not change between them.
    // An empty list is filled by the first session that lists; null: every session lists for itself.
    std::vector<std::string>* listed = nullptr;
    unsigned watchdog_s = 600;     // kill a process that reports nothing for this long
    unsigned test_timeout_s = 0;   // GPULAB_TEST_TIMEOUT_S; 0: the lab config's
    std::set<std::string> test_timeout_ids;  // the test ids test_timeout_s is for (GPULAB_TEST_TIMEOUT_IDS); empty: all
    // Test ids whose cases earn credit one by one (lab.json "credit": "proportional"). A case of any other test that
    // leaves the CUDA context unusable decides that test (it scores nothing once a case fails), and its other cases
    // are not run: each would most likely break the context again, and each costs a fresh process.
    std::set<std::string> credit_per_case_ids;
    // After this many tests hit their time limit, the tests not yet run are not run: a kernel that never
    // ends hangs nearly every test, each for the full limit (minutes per submission in a class batch).
    // 0: no cap.
    unsigned max_hangs = 0;
    // A later part of the same run in the same work_dir (the tests that waited for others): logs, progress
    // and artifacts of the earlier parts are kept, and its JUnit files carry this label.
    bool continues = false;
    std::string part_label;
    std::map<std::string, std::string> env;  // more of the processes' environment (a session beside the timed tests: fewer threads)
};

SessionResult run_session(const SessionSpec& spec);

}  // namespace gpulab::runner
