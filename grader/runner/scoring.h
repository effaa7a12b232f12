// Turns test outcomes into points, by the lab config: each config id's points are shared by its
// instances, skipped tests are "not run", and a test whose prerequisites failed scores nothing.
#pragma once

#include "admission.h"
#include "test_session.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace gpulab::runner {

struct IdScore {
    std::string id;
    std::string what;
    double points = 0, max_points = 0;
    int passed = 0, failed = 0, skipped = 0, total = 0;
    std::string verdict;    // a word or two for the table
    std::string measured;   // the figure of the instance shown (the first failure, else the last)
    std::string threshold;
    nlohmann::json properties = nlohmann::json::object();  // everything the shown instance recorded
    std::vector<std::string> details;  // what a student reads about this test (LabScore::feedback orders them)
};

// One entry of what went wrong in a lab (LabScore::feedback). Every place that shows a student the list (the
// terminal, summary.json, the class feedback pages, Gradescope) shows these, in this order.
struct Feedback {
    enum class Kind {
        fix_first,        // a failure other tests wait on: they are not counted until it passes
        failure,          // another failure
        not_counted,      // one line naming the tests not counted until `test` passes
        why_not_counted,  // after those lines, once: why they are not counted
    };
    Kind kind = Kind::failure;
    std::string test;                  // the failed test; for not_counted, the one the others wait on
    std::vector<std::string> waiting;  // fix_first, not_counted: the tests not counted until `test` passes
    std::vector<std::string> text;     // what the student reads: the failed test's details, or the one line
};

// "fix_first", "failure", "not_counted", "why_not_counted": the kind's name in summary.json.
const char* feedback_kind_word(Feedback::Kind kind);

struct LabScore {
    std::string lab, title;
    double points = 0, max_points = 0;
    double points_not_run = 0;  // points of tests skipped for want of a GPU
    std::vector<IdScore> ids;
    // What went wrong, in the order to fix it: the failures other tests wait on, the other failures (each in
    // lab.json's order), then a line per failure naming the tests not counted until it passes, and why once.
    std::vector<Feedback> feedback;
    std::vector<std::string> problems;  // config/grader mismatches an instructor must fix
    // admit()'s verdict, whole (admission.h): where it did not admit the solution, no test counts and its reason
    // (the compiler's words, what was refused, what was forged) says why.
    AdmissionVerdict admission;
    std::vector<std::string> artifacts;  // files the tests left for a person to open
};

LabScore score_lab(const nlohmann::json& config, const SessionResult& session);
// A lab whose solution admission did not admit (admission.h): every point lost, each test's verdict the
// admission's word, and the reason (the compiler's words where it did not compile; else the verdict's reason).
LabScore score_not_admitted(const nlohmann::json& config, const AdmissionVerdict& verdict);

}  // namespace gpulab::runner
