#include "untimed_outcomes.h"

#include "lab_grading.h"

#include "gpulab/lab_config.h"

#include <filesystem>
#include <fstream>

namespace gpulab::runner {

// A test's outcome as the file keeps it.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TestOutcome, name, id, result, messages, properties, ms)

namespace {

namespace fs = std::filesystem;

const char* const kFileName = "outcomes.json";

}  // namespace

void save_outcomes(const std::string& work_dir, const GradedWhat& what, const SessionResult& session) {
    nlohmann::json tests = nlohmann::json::array();
    for (const TestOutcome& t : session.tests) tests.push_back(t);
    const nlohmann::json file{{"lab", what.lab},       {"solution", what.solution}, {"mode", what.mode},
                              {"seed", session.seed}, {"device", session.device},   {"tests", tests}};
    // Written whole under another name and renamed: a reader never sees half a file.
    const fs::path path = fs::path(work_dir) / kFileName, partial = fs::path(work_dir) / (std::string(kFileName) + ".part");
    std::ofstream(partial) << file.dump(1) << "\n";
    fs::rename(partial, path);
}

SessionResult load_untimed_outcomes(const std::string& from_dir, const GradedWhat& what,
                                    const std::string& student_library, const std::set<std::string>& timed_ids) {
    const fs::path path = fs::path(from_dir) / what.lab / kFileName;
    const std::string use = " (--untimed-from needs an earlier grading of the same build without timing, e.g. "
                            "--no-timing --out DIR, or the gpu/ folder of a --compare-modes one)";
    if (!fs::exists(path)) throw UsageError("no earlier outcomes at " + path.string() + use);
    Json file;
    try {
        file = load_json_file(path.string());
    } catch (const std::exception& e) {
        throw UsageError("cannot read the earlier outcomes " + path.string() + ": " + e.what());
    }
    const auto mismatch = [&](const char* key, const std::string& wanted) {
        const std::string found = file.value(key, "");
        if (found != wanted)
            throw UsageError(path.string() + " holds the outcomes of " + key + " \"" + found + "\", not \"" + wanted + "\"" + use);
    };
    mismatch("lab", what.lab);
    mismatch("solution", what.solution);
    mismatch("mode", what.mode);
    // Outcomes of code built since would be another solution's: the library must be no newer than the file.
    std::error_code no_library;
    const auto built = fs::last_write_time(student_library, no_library);
    if (!no_library && built > fs::last_write_time(path))
        throw UsageError(path.string() + " is older than " + student_library + ": graded before the last build" + use);

    SessionResult prior;
    try {
        prior.seed = file.at("seed");
        prior.device = file.at("device");
        for (const nlohmann::json& test : file.at("tests")) {
            TestOutcome t = test.get<TestOutcome>();
            if (!timed_ids.count(t.id)) prior.tests.push_back(std::move(t));
        }
    } catch (const nlohmann::json::exception& e) {
        throw UsageError("cannot read the earlier outcomes " + path.string() + ": " + e.what());
    }
    return prior;
}

}  // namespace gpulab::runner
