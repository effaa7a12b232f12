// gpulab-gradescope-results SUMMARY_JSON RESULTS_JSON [--student NAME] [--feedback DIR]
// Turns one gpulab-grade run's summary.json into Gradescope's results.json (reports.h), for the
// run_autograder script of a Gradescope assignment (GRADESCOPE.md), and optionally writes the same
// feedback a class batch writes. Exit status 0 when results.json was written, 1 otherwise, with the
// reason on stderr: Gradescope then shows the student that the autograder failed, not a 0.
#include "reports.h"

#include <cstring>
#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
    namespace gc = gpulab::grade_class;
    std::string summary_path, results_path, student = "submission", feedback_dir;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--student" || arg == "--feedback") && i + 1 < argc) (arg == "--student" ? student : feedback_dir) = argv[++i];
        else if (summary_path.empty()) summary_path = arg;
        else if (results_path.empty()) results_path = arg;
        else summary_path.clear(), i = argc;  // too many arguments: the usage line below
    }
    if (summary_path.empty() || results_path.empty()) {
        std::cerr << "usage: gpulab-gradescope-results SUMMARY_JSON RESULTS_JSON [--student NAME] [--feedback DIR]\n";
        return 1;
    }
    try {
        std::ifstream in(summary_path);
        if (!in) throw std::runtime_error("cannot read " + summary_path + ": " + std::strerror(errno));
        const std::filesystem::path grade_dir = std::filesystem::path(summary_path).parent_path();
        const auto labs = gc::graded_labs_from_summary(student, nlohmann::json::parse(in), grade_dir.string());
        std::ofstream out(results_path, std::ios::trunc);
        out << gc::gradescope_results_json(labs).dump(2) << "\n";
        out.close();
        if (!out) throw std::runtime_error("cannot write " + results_path);
        if (!feedback_dir.empty()) gc::write_feedback(feedback_dir, student, labs);
    } catch (const std::exception& e) {
        std::cerr << "gpulab-gradescope-results: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
