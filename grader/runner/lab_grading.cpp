#include "lab_grading.h"

#include "built_in_paths.h"
#include "call_policy.h"
#include "child_process.h"
#include "plot_queue.h"
#include "test_session.h"
#include "text_file.h"
#include "untimed_outcomes.h"
#include "wave_plan.h"

#include "gpulab/lab_config.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <sstream>

namespace gpulab::runner {
namespace {

namespace fs = std::filesystem;

// The compiler's error lines and a little context, for the student.
std::string compiler_errors(const std::string& log) {
    std::istringstream in(log);
    std::string line, out;
    int context = 0, shown = 0;
    while (std::getline(in, line) && shown < 40) {
        // g++ names the student's line of a template error in a "required from here" line before it.
        const bool error = (line.find("error") != std::string::npos && line.find("gmake") == std::string::npos &&
                            line.find("make[") == std::string::npos && line.find("Error ") == std::string::npos) ||
                           line.find("required from here") != std::string::npos;
        if (error) context = 3;
        if (context > 0) {
            out += line + "\n";
            --context;
            ++shown;
        }
    }
    return out.empty() ? log.substr(log.size() > 3000 ? log.size() - 3000 : 0) : out;
}

bool build_target(const std::string& build_dir, const std::string& target, const fs::path& log, std::string* errors) {
    fs::remove(log);
    const auto started = std::chrono::steady_clock::now();
    const ExitStatus status = run_child({{"cmake", "--build", build_dir, "--target", target}, {}, log.string()}, [&] {
        return std::chrono::steady_clock::now() - started < std::chrono::minutes(10);
    });
    if (status.exited && status.code == 0) return true;
    *errors = compiler_errors(read_text(log));
    return false;
}

// The lab's grader for `mode`, built here if it is missing and building is asked for: make grade builds only
// CPU execution mode's graders on a machine where nvidia-smi sees no GPU, and the CUDA runtime may still see one.
void ensure_grader(const GradeRequest& request, const LabManifest& manifest, const std::string& mode) {
    if (fs::exists(manifest.graders.at(mode))) return;
    if (!request.build)
        throw UsageError("the " + mode + " grader of " + manifest.lab + " is not built (" + manifest.graders.at(mode) +
                         "): run make grade, or cmake --build " + request.build_dir + " --target gpulab_graders");
    std::cout << "[gpulab] " << manifest.lab << ": building its " << (mode == "cpu" ? "CPU execution mode" : "GPU")
              << " grader ..." << std::endl;
    const fs::path log = fs::path(request.out_dir) / ("build-grader-" + mode + ".log");
    std::string errors;
    if (!manifest.grader_targets.count(mode) || !build_target(request.build_dir, manifest.grader_targets.at(mode), log, &errors))
        throw UsageError("the " + mode + " grader of " + manifest.lab + " does not build; see " + log.string());
}

// The ids of tests whose lab.json entry has `key` set to `value`.
std::set<std::string> ids_where(const Json& config, const char* key, const Json& value) {
    std::set<std::string> ids;
    for (const Json& test : config.at("tests"))
        if (test.contains(key) && test.at(key) == value) ids.insert(test.at("id").get<std::string>());
    return ids;
}

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

// What the solution's sources #include, checked before anything is built; an empty string when all is
// allowed. A library that computes the result (Thrust, cuBLAS, ...) is refused here in both modes, where CPU
// execution mode could not even compile it.
std::string refused_includes(const Solution& solution, const Json& config) {
    if (!call_check_applies(solution)) return "";
    const CallCheck check = check_solution_includes(solution_sources(solution, config), call_policy_path());
    if (!check.error.empty()) throw UsageError(check.describe());
    return check.passed() ? "" : check.describe();
}

// What the solution's code calls, checked before it runs; an empty string when all is allowed.
std::string refused_calls(const Solution& solution, const Build& build, const Json& config) {
    if (!call_check_applies(solution)) return "";
    if (build.objects.empty()) throw UsageError("the build tree lists no object files for " + build.target + ": reconfigure it");
    const CallCheck check = check_solution_calls(build.objects, solution_sources(solution, config), call_policy_path());
    if (!check.error.empty()) throw UsageError(check.describe());
    return check.passed() ? "" : check.describe();
}

// After a build that failed: a call to a library the solution does not link (cuBLAS, say) fails to link, and
// the student must read the rule, not the linker. The objects compiled from the student's current code are
// checked (each newer than its source file: compiled by this build, or up to date and left alone by it; an
// object older than its source is left from an earlier version that compiled), and a call a rule refuses
// voids the lab. A call that is merely unknown stays the linker's to report (a function declared but never
// written). An empty string when nothing is refused.
std::string refused_calls_after_failed_build(const Solution& solution, const Build& build, const Json& config) {
    if (!call_check_applies(solution)) return "";
    const std::vector<std::string> sources = solution_sources(solution, config);
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
    if (current.empty()) return "";
    CallCheck check = check_solution_calls(current, sources, call_policy_path());
    if (!check.error.empty()) return "";  // the compiler's message stands
    std::erase_if(check.refused, [](const RefusedCall& r) { return !r.listed; });
    return check.passed() ? "" : check.describe();
}

// What the GPU part reports for a test the CPU part runs; its outcome is replaced by the CPU part's.
const char* const kRunInCpuMode = "run in CPU execution mode";
// What --compare-modes' CPU grading reports for those tests: the GPU grading's CPU part ran them, in this mode.
const char* const kGradedBeside = "not run: graded in CPU execution mode by the GPU grading (--compare-modes)";

// What a part of the run reports for a test a later (or earlier) wave runs: dropped once the waves are done.
const char* const kLaterWave = "run in another wave";
// The reason a test is not run because a test it requires did not pass; scoring counts it as "not counted".
const char* const kNotCountedPrefix = "not counted: ";

// Each test id's required ids (lab.json "requires").
std::map<std::string, std::vector<std::string>> required_tests(const Json& config) {
    std::map<std::string, std::vector<std::string>> found;
    for (const Json& test : config.at("tests"))
        if (test.contains("requires")) found[test.at("id")] = test.at("requires").get<std::vector<std::string>>();
    return found;
}

// A required test lets its dependants run unless one of its instances failed, crashed or timed out, or it was
// not counted itself (a test that was skipped or not run here, a GPU-only check in CPU execution mode, blocks
// nothing).
bool passed_or_not_run(const SessionResult& session, const std::string& id) {
    for (const TestOutcome& t : session.tests) {
        if (t.id != id) continue;
        if (t.result == "failed" || t.result == "crashed" || t.result == "timeout") return false;
        // Held back itself because what it requires failed: what requires it waits in vain too.
        if (t.properties.value("not_run_because", "").rfind(kNotCountedPrefix, 0) == 0) return false;
    }
    return true;
}

void drop_placeholders(SessionResult& session) {
    std::erase_if(session.tests, [](const TestOutcome& t) {
        return t.properties.value("not_run_because", "") == kLaterWave;
    });
}

// Merges the outcomes of the part of the lab a session covered into `into`.
void merge_part(SessionResult part, SessionResult& into) {
    if (!part.error.empty()) throw UsageError(part.error);
    if (!part.tampering.empty() && into.tampering.empty()) into.tampering = part.tampering;
    if (into.device.empty() || into.device.is_null()) into.device = part.device, into.seed = part.seed;
    into.processes += part.processes;
    into.tests.insert(into.tests.end(), part.tests.begin(), part.tests.end());
}

// Runs one wave's parts (the GPU's, CPU execution mode's) and merges them in the order given. Parts of an
// untimed wave run side by side: CPU execution mode's read counts beside the GPU's sanitizer and technique
// checks. A wave with a timed test runs its parts one after the other, so nothing shares the machine with a
// clock.
void run_wave(const std::vector<SessionSpec>& parts, bool side_by_side, SessionResult& into) {
    if (!side_by_side || parts.size() < 2) {
        for (const SessionSpec& spec : parts) {
            merge_part(run_session(spec), into);
            if (!into.tampering.empty()) return;
        }
        return;
    }
    std::vector<std::future<SessionResult>> running;
    for (std::size_t i = 1; i < parts.size(); ++i)
        running.push_back(std::async(std::launch::async, [&parts, i] { return run_session(parts[i]); }));
    std::vector<SessionResult> done;
    done.push_back(run_session(parts.front()));
    for (auto& part : running) done.push_back(part.get());
    for (SessionResult& part : done) merge_part(std::move(part), into);
}

}  // namespace

// The reference libraries of the labs lab.json names as "companions" (a report times their kernels beside
// this lab's), built if asked; a companion this build lacks is left out, and the report says so.
std::map<std::string, std::string> companion_references(const GradeRequest& request, const Json& config,
                                                        const std::string& mode) {
    std::map<std::string, std::string> found;
    if (!request.all_labs) return found;
    for (const std::string& lab : config.value("companions", std::vector<std::string>{})) {
        for (const LabManifest& other : *request.all_labs) {
            if (other.lab != lab || !other.solutions.count("reference")) continue;
            const auto build = other.solutions.at("reference").builds.find(mode);
            if (build == other.solutions.at("reference").builds.end()) continue;
            std::string ignored;
            if (request.build &&
                !build_target(request.build_dir, build->second.target,
                              fs::path(request.out_dir) / ("build-companion-" + lab + ".log"), &ignored))
                continue;
            if (fs::exists(build->second.library)) found[lab] = build->second.library;
        }
    }
    return found;
}

// The lab's expert kernels, as the companion "<lab>/expert", built if asked; where this build has none (a
// student release, a build without CUDA) the roofline report says so.
static void add_expert(const GradeRequest& request, const LabManifest& manifest, const std::string& mode,
                std::map<std::string, std::string>& companions) {
    const auto build = manifest.expert.find(mode);
    if (build == manifest.expert.end()) return;
    std::string ignored;
    if (request.build && !build_target(request.build_dir, build->second.target,
                                       fs::path(request.out_dir) / "build-expert.log", &ignored))
        return;
    if (fs::exists(build->second.library)) companions[manifest.lab + "/expert"] = build->second.library;
}

LabGrade grade_lab(const GradeRequest& request, const LabManifest& manifest) {
    const Json config = load_json_file(manifest.config);
    const auto solution = manifest.solutions.find(request.solution);
    if (solution == manifest.solutions.end()) {
        std::string known;
        for (const auto& [name, s] : manifest.solutions) known += " " + name;
        throw UsageError(manifest.lab + " has no solution named \"" + request.solution + "\". It has:" + known);
    }
    if (!manifest.graders.count(request.mode) || !solution->second.builds.count(request.mode))
        throw UsageError("this build has no " + request.mode + " mode for " + manifest.lab +
                         (request.mode == "gpu" ? " (no CUDA compiler was found)" : " (Boost.Context was not found)"));
    // Tests marked "run_in": "cpu" measure what only CPU execution mode can (for instance how often a
    // kernel reads its input): on a GPU they still run there, so both modes give one verdict.
    const std::set<std::string> credit_per_case = ids_where(config, "credit", "proportional");
    const std::set<std::string> cpu_only = request.mode == "gpu" ? ids_where(config, "run_in", "cpu") : std::set<std::string>{};
    const std::set<std::string> graded_beside =
        request.mode == "cpu" && request.run_in_cpu_graded_beside ? ids_where(config, "run_in", "cpu") : std::set<std::string>{};
    // --time-only names tests lab.json marks "timing": a misspelt one would leave every speed test out unnoticed.
    const std::set<std::string> timed_ids = ids_where(config, "timing", true);
    for (const std::string& id : request.time_only)
        if (!timed_ids.count(id))
            throw UsageError("--time-only " + id + ": " + manifest.lab + "'s lab.json marks no test \"timing\" by that name");
    const bool cpu_part = !cpu_only.empty() && manifest.graders.count("cpu") && solution->second.builds.count("cpu");
    std::vector<std::string> modes{request.mode};
    if (cpu_part) modes.push_back("cpu");

    const fs::path work = request.out_dir;
    fs::create_directories(work);
    // Nothing of the solution is built, let alone run, before its #include lines have passed.
    if (const std::string refused = refused_includes(solution->second, config); !refused.empty())
        return {score_voided(config, "refused", refused), nlohmann::json::object(), request.seed};
    for (const std::string& mode : modes) ensure_grader(request, manifest, mode);
    std::cout << "[gpulab] " << manifest.lab << ": building " << request.solution << " ("
              << (request.mode == "cpu" ? "CPU execution mode" : "GPU") << ") ..." << std::endl;
    for (const std::string& mode : modes) {
        const Build& student = solution->second.builds.at(mode);
        const Build& reference = manifest.solutions.at("reference").builds.at(mode);
        const std::string suffix = mode == request.mode ? "" : "-" + mode;
        std::string errors;
        bool built = !request.build || build_target(request.build_dir, student.target, work / ("build" + suffix + ".log"), &errors);
        if (built && request.build && request.solution != "reference" &&
            !build_target(request.build_dir, reference.target, work / ("build-reference" + suffix + ".log"), &errors))
            throw UsageError("the reference solution does not build; see " + (work / ("build-reference" + suffix + ".log")).string());
        if (built && !fs::exists(student.library)) {
            built = false;
            errors = "the build produced no library at " + student.library;
        }
        if (!built && request.build)
            if (const std::string refused = refused_calls_after_failed_build(solution->second, student, config);
                !refused.empty())
                return {score_voided(config, "refused", refused), nlohmann::json::object(), request.seed};
        if (!built) return {score_uncompiled(config, errors), nlohmann::json::object(), request.seed};
        // Nothing of the solution runs before this check has passed.
        if (const std::string refused = refused_calls(solution->second, student, config); !refused.empty())
            return {score_voided(config, "refused", refused), nlohmann::json::object(), request.seed};
    }

    std::cout << "[gpulab] " << manifest.lab << ": running the tests (each in its own process) ..." << std::endl;
    // Built (where asked) once, not in every wave.
    std::map<std::string, std::map<std::string, std::string>> companions_by_mode;
    for (const std::string& mode : modes) {
        companions_by_mode[mode] = companion_references(request, config, mode);
        add_expert(request, manifest, mode, companions_by_mode[mode]);
    }
    const auto companions = [&](const std::string& mode) { return companions_by_mode.at(mode); };
    SessionResult session;
    std::set<std::string> decided, waiting;
    std::string seed = request.seed;
    if (!request.untimed_from.empty()) {
        // The untimed tests were graded before (make test: in parallel with other checks); they stand as decided,
        // and the timed tests below require them as if they had run in this process, on the same seed.
        std::set<std::string> not_imported = timed_ids;
        if (!request.reports)
            for (const std::string& id : ids_where(config, "points", 0)) not_imported.insert(id);
        session = load_untimed_outcomes(request.untimed_from, {manifest.lab, request.solution, request.mode},
                                        solution->second.builds.at(request.mode).library, not_imported);
        for (const TestOutcome& t : session.tests) decided.insert(t.id);
        if (seed.empty()) seed = session.seed;
        std::cout << "[gpulab] " << manifest.lab << ": " << decided.size() << " untimed tests as graded in "
                  << request.untimed_from << " (seed " << session.seed << "); running the timed tests ..." << std::endl;
    }
    // Pictures are drawn beside the tests, by a worker of this process (plot_queue.h).
    PlotQueue plots(work.string());
    std::map<std::string, std::vector<std::string>> listed;  // each grader binary's tests, listed once
    // The tests run in waves (wave_plan.h): those that require others once these are decided, the timed ones
    // last and alone.
    const std::map<std::string, std::vector<std::string>> requires_of = required_tests(config);
    for (const Json& test : config.at("tests"))
        if (!decided.count(test.at("id"))) waiting.insert(test.at("id").get<std::string>());
    int wave = 0;
    std::set<std::string> modes_started;
    while (!waiting.empty()) {
        const WavePlan plan = plan_wave(waiting, requires_of, timed_ids,
                                        [&](const std::string& id) { return passed_or_not_run(session, id); });
        const std::set<std::string>& ready = plan.ready;
        std::vector<SessionSpec> parts;
        for (const std::string& mode : modes) {
            SessionSpec spec{manifest.graders.at(mode), manifest.config, solution->second.builds.at(mode).library,
                             manifest.solutions.at("reference").builds.at(mode).library, companions(mode),
                             (mode == request.mode ? work : work / mode).string(), seed, request.filter};
            spec.test_timeout_s = solution->second.test_timeout_s;
            spec.test_timeout_ids = solution->second.test_timeout_ids;
            spec.cache_dir = (fs::path(request.build_dir) / "report-cache").string();
            spec.plot_queue = plots.folder();
            spec.listed = &listed[mode];
            spec.max_hangs = request.max_hangs;
            spec.credit_per_case_ids = credit_per_case;
            spec.part_label = wave > 0 ? "wave" + std::to_string(wave) + "-" : "";
            for (const std::string& id : waiting)
                if (!ready.count(id) && !plan.not_counted.count(id)) spec.left_out[id] = kLaterWave;
            for (const std::string& id : decided) spec.left_out[id] = kLaterWave;
            for (const auto& [id, required] : plan.not_counted)
                spec.left_out[id] = std::string(kNotCountedPrefix) + required + " did not pass";
            for (const std::string& id : timed_ids) {
                if (spec.left_out.count(id)) continue;
                if (!request.timing) spec.left_out[id] = "not run: timing left out (--no-timing)";
                else if (!request.time_only.empty() && !request.time_only.count(id))
                    spec.left_out[id] = "not run: timing left out (--time-only)";
            }
            if (!request.reports)
                for (const std::string& id : ids_where(config, "points", 0))
                    if (!spec.left_out.count(id)) spec.left_out[id] = "not run: reports left out (--no-reports)";
            for (const std::string& id : graded_beside)
                if (!spec.left_out.count(id)) spec.left_out[id] = kGradedBeside;
            if (mode == request.mode) {
                for (const std::string& id : cpu_only)
                    if (ready.count(id)) spec.left_out[id] = cpu_part ? kRunInCpuMode : "needs CPU execution mode, not built here";
            } else {
                std::set<std::string> only;
                for (const std::string& id : cpu_only)
                    if (ready.count(id)) only.insert(id);
                if (only.empty()) continue;
                spec.only_ids = only;
            }
            // A mode's first part starts its folder afresh (an earlier grading's logs and progress would count
            // twice); its later parts add to it.
            spec.continues = !modes_started.insert(mode).second;
            parts.push_back(std::move(spec));
        }
        run_wave(parts, !plan.timed, session);
        // Placeholders of tests another wave runs are dropped; each test keeps its one real outcome.
        drop_placeholders(session);
        for (const std::string& id : ready) decided.insert(id), waiting.erase(id);
        for (const auto& [id, required] : plan.not_counted) decided.insert(id), waiting.erase(id);
        ++wave;
        if (!session.tampering.empty()) break;
    }
    // A picture the worker could not draw is named here: its test said only where it would be.
    std::map<std::string, std::vector<std::string>> not_drawn;  // by reason
    for (const QueuedPicture& p : plots.finish())
        if (!p.drawn) not_drawn[p.skipped_because].push_back(p.picture);
    for (const auto& [reason, pictures] : not_drawn) {
        const bool one = pictures.size() == 1;
        std::cout << "[gpulab] " << manifest.lab << ": " << (one ? "picture " + pictures[0] : std::to_string(pictures.size()) + " pictures")
                  << " not drawn: " << reason << (one ? "" : " (the data they are drawn from is in the artifacts folder)") << "\n";
    }
    // The CPU part's outcomes stand in for the placeholders the GPU part left for the same tests.
    std::erase_if(session.tests, [&](const TestOutcome& t) {
        return cpu_part && cpu_only.count(t.id) && t.properties.value("not_run_because", "") == kRunInCpuMode;
    });
    if (!session.tampering.empty())
        return {score_voided(config, "tampered", "The results of this run were tampered with: " + session.tampering +
                                                     ". None of this run's results count."),
                session.device, session.seed};
    // A test that found the grader's own inputs broken (a course photo that cannot be read, say) stops
    // grading: no submission may be charged for it.
    for (const TestOutcome& t : session.tests)
        if (t.properties.contains("grader_error"))
            throw UsageError("grader error in " + manifest.lab + " (" + t.name + "), not the submission's fault: " +
                             t.properties.at("grader_error").get<std::string>());
    save_outcomes(work.string(), {manifest.lab, request.solution, request.mode}, session);
    LabScore score = score_lab(config, session);
    if (const fs::path artifacts = work / "artifacts"; fs::is_directory(artifacts)) {
        for (const auto& entry : fs::recursive_directory_iterator(artifacts))
            if (entry.is_regular_file()) score.artifacts.push_back(entry.path().string());
        std::sort(score.artifacts.begin(), score.artifacts.end());
    }
    return {score, session.device, session.seed, graded_beside};
}

}  // namespace gpulab::runner
