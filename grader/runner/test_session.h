// Runs every test of one lab's grader binary against one solution, each test's crash or hang
// costing only that test: when the process dies, a fresh one continues with the tests left.
#pragma once

#include "child_process.h"

#include <nlohmann/json.hpp>

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
    int processes = 0;      // how many grader processes it took
    std::string error;      // set when the binary could not even list its tests
};

struct SessionSpec {
    std::string grader;            // the lab's grader binary
    std::string config;            // its lab.json
    std::string student_library;   // GPULAB_SOLUTION_LIB
    std::string reference_library; // GPULAB_REFERENCE_LIB
    std::string work_dir;          // logs, progress and JUnit files go here
    std::string seed;              // GPULAB_SEED; empty: let the binary draw one
    std::string filter;            // a GoogleTest filter to narrow the run; empty: all
    unsigned watchdog_s = 600;     // kill a process that reports nothing for this long
    unsigned test_timeout_s = 0;   // GPULAB_TEST_TIMEOUT_S for every test; 0: the lab config's
};

SessionResult run_session(const SessionSpec& spec);

}  // namespace gpulab::runner
