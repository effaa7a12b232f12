#include "admission.h"

#include "built_in_paths.h"
#include "lab_grading.h"

#include "gpulab/cpu_mode_unsupported.h"

#include <filesystem>
#include <utility>

namespace gpulab::runner {
namespace {

namespace fs = std::filesystem;

bool refuses(const CallCheck& check) { return !check.refused.empty(); }

// Whether the call check applies: a cheat may switch it off to test the result channel behind it. A
// prebuilt reference (a student release) has no objects to read: it was checked where it was compiled.
bool call_check_applies(const Solution& solution) {
    if (solution.prebuilt) return false;
    return solution.expect.empty() || load_json_file(solution.expect).value("call_check", true);
}

std::vector<std::string> solution_sources(const Solution& solution, const Json& config) {
    std::vector<std::string> sources;
    for (const Json& file : config.at("sources"))
        sources.push_back((fs::path(solution.sources_dir) / file.get<std::string>()).string());
    return sources;
}

// A check that could not run is the grader's problem, not the student's.
CallCheck or_usage_error(CallCheck check) {
    if (!check.error.empty()) throw UsageError(check.describe());
    return check;
}

}  // namespace

AdmissionVerdict admit(const AdmissionFacts& facts) {
    // A library that computes the result is refused before anything is built (CPU execution mode could not even
    // compile Thrust).
    if (refuses(facts.includes)) return {Admission::refused, facts.includes.describe()};
    for (const SolutionBuild& build : facts.builds) {
        // A refused call that broke the build is the student's to read, not the linker's message about it.
        if (!build.built && refuses(build.refused_in_failed_build))
            return {Admission::refused, build.refused_in_failed_build.describe()};
        if (!build.built)
            return {build.errors.find(kCpuModeUnsupportedMarker) != std::string::npos ? Admission::not_buildable_in_cpu_mode
                                                                              : Admission::not_compiled,
                    build.errors};
        // Nothing of the solution runs before its calls have passed.
        if (refuses(build.calls)) return {Admission::refused, build.calls.describe()};
    }
    if (!facts.tampering.empty())
        return {Admission::tampered,
                "The results of this run were tampered with: " + facts.tampering + ". None of this run's results count."};
    return {};
}

const char* admission_word(Admission admission) {
    switch (admission) {
        case Admission::admitted: return "admitted";
        case Admission::refused: return "refused";
        case Admission::not_compiled: return "not compiled";
        case Admission::not_buildable_in_cpu_mode: return "not compiled";
        case Admission::tampered: return "tampered";
    }
    return "";
}

namespace {
constexpr std::pair<Admission, const char*> kKeys[] = {{Admission::admitted, "admitted"},
                                                       {Admission::refused, "refused"},
                                                       {Admission::not_compiled, "not_compiled"},
                                                       {Admission::not_buildable_in_cpu_mode, "cpu_mode_cannot_build"},
                                                       {Admission::tampered, "tampered"}};
}  // namespace

const char* admission_key(Admission admission) {
    for (const auto& [a, key] : kKeys)
        if (a == admission) return key;
    return "";
}

Admission admission_of_key(const std::string& key) {
    for (const auto& [a, k] : kKeys)
        if (key == k) return a;
    return Admission::admitted;
}

CallCheck check_includes(const Solution& solution, const Json& config) {
    if (!call_check_applies(solution)) return {};
    return or_usage_error(check_solution_includes(solution_sources(solution, config), call_policy_path()));
}

CallCheck check_calls(const Solution& solution, const Build& build, const Json& config) {
    if (!call_check_applies(solution)) return {};
    if (build.objects.empty()) throw UsageError("the build tree lists no object files for " + build.target + ": reconfigure it");
    return or_usage_error(check_solution_calls(build.objects, solution_sources(solution, config), call_policy_path()));
}

CallCheck check_calls_after_failed_build(const Solution& solution, const Build& build, const Json& config) {
    if (!call_check_applies(solution)) return {};
    const std::vector<std::string> sources = solution_sources(solution, config);
    // The objects compiled from the student's current code: each newer than its source file (compiled by this
    // build, or up to date and left alone by it). An object older than its source is left from an earlier
    // version that compiled.
    std::vector<std::string> current;
    for (const std::string& object : build.objects) {
        // heat_rod.cu.o (nvcc) or heat_rod.cu.cpp.o (CPU execution mode) comes from heat_rod.cu.
        const std::string name = fs::path(object).filename().string();
        for (const std::string& source : sources) {
            if (name.rfind(fs::path(source).filename().string() + ".", 0) != 0) continue;
            std::error_code object_missing, source_missing;
            const auto compiled = fs::last_write_time(object, object_missing);
            const auto edited = fs::last_write_time(source, source_missing);
            if (!object_missing && !source_missing && compiled >= edited) current.push_back(object);
        }
    }
    if (current.empty()) return {};
    CallCheck check = check_solution_calls(current, sources, call_policy_path());
    if (!check.error.empty()) return {};  // the compiler's message stands
    std::erase_if(check.refused, [](const RefusedCall& r) { return !r.listed; });
    return check;
}

}  // namespace gpulab::runner
