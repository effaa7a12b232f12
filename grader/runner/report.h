// What the runner prints and writes: a table per lab for people, a summary JSON for machines.
#pragma once

#include "scoring.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace gpulab::runner {

struct GradeRun {
    std::string solution;
    std::string mode;  // "gpu" or "cpu"
    nlohmann::json device;  // from the first lab that reported one
    std::string seed;
    bool gpu = false;
    std::vector<LabScore> labs;
};

void print_lab(std::ostream& out, const LabScore& lab, bool color);
void print_summary(std::ostream& out, const GradeRun& run, bool color);
nlohmann::json to_json(const GradeRun& run);

}  // namespace gpulab::runner
