// A lab's config file (labs/<lab>/lab.json): points, sizes, tolerances and thresholds live there,
// not in C++, so an instructor can retune a lab without touching the grader.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace gpulab {

using Json = nlohmann::json;

// The config of the lab this grader binary was built for, from $GPULAB_LAB_CONFIG (the grader's
// main() points it at the lab's own file unless it is already set). Throws with the path when it is
// missing or malformed. In CPU execution mode the config's "cpu_mode" object is merged over it
// (RFC 7386 merge patch), so a lab can shrink long runs there; it must keep every awkward size.
const Json& lab_config();

// The lab.json a grader binary was built for, where $GPULAB_LAB_CONFIG names none: defined in a source
// generated for each lab's grader (gpulab_add_grader_executable), so one main() serves every lab.
const char* built_in_lab_config_path();

// Whether lab.json's "tests" lists `id` ("Report.AccessAnalysis"): a test registered from config (the reports every
// lab opts into with one line) exists only where it is listed. False where the config cannot be read (a broken
// config fails the tests that read it).
bool lab_lists_test(const std::string& id);
// lab.json's entry of test `id`, or null (not listed, or the config cannot be read).
const Json* lab_test_entry(const std::string& id);

// config["a"]["b"] with a message that names the missing key, for grader code.
const Json& config_at(const Json& node, const std::string& key);

Json load_json_file(const std::string& path);

}  // namespace gpulab
