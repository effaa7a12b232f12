// --require: what the project's own tests demand of a grade (full marks for the reference, a starter
// that fails only its TODOs, a planted bug caught by the tests that name it).
#pragma once

#include "lab_manifest.h"
#include "scoring.h"

#include <string>

namespace gpulab::runner {

// Returns an exit status from exit_status.h, explaining any shortfall on stdout.
int check_requirement(const std::string& requirement, const LabScore& lab, const Solution& solution);

}  // namespace gpulab::runner
