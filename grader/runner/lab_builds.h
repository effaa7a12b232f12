// What grading a lab builds: the lab's graders, the solution and the reference beside it, and the kernels a
// report times beside the student's (other labs' references, the lab's expert kernels). Each is built only
// where the request asks for building.
#pragma once

#include "admission.h"
#include "grading_plan.h"

#include <map>
#include <string>

namespace gpulab::runner {

// Builds the lab's graders and the solution (with the reference beside it) for each of the plan's modes, and
// adds each build and what its objects call to `facts`; stops at the first build admit() does not admit.
// A grader or a reference that does not build is the grader's problem: UsageError.
void build_solution(const GradingPlan& plan, AdmissionFacts& facts);

// The libraries a lab's reports time beside the student's in `mode`, by name: the references of the labs lab.json
// names as "companions", and the lab's expert kernels as "<lab>/expert". What this build lacks (a student release
// has no expert kernels) is left out, and the report says so.
std::map<std::string, std::string> companions_for(const GradingPlan& plan, const std::string& mode);

}  // namespace gpulab::runner
