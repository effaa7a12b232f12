#include "test_waves.h"

#include "cpu_shares.h"
#include "lab_builds.h"
#include "plot_queue.h"
#include "untimed_outcomes.h"
#include "wave_plan.h"

#include "gpulab/handed_over.h"

#include <future>
#include <iostream>
#include <optional>

namespace gpulab::runner {
namespace {

namespace fs = std::filesystem;

// What the GPU part reports for a test the CPU part runs; its outcome is replaced by the CPU part's.
const char* const kRunInCpuMode = "run in CPU execution mode";
// What --compare-modes' CPU grading reports for those tests: the GPU grading's CPU part ran them, in this mode.
const char* const kGradedBeside = "not run: graded in CPU execution mode by the GPU grading (--compare-modes)";

// What a part of the run reports for a test a later (or earlier) wave runs: dropped once the waves are done.
const char* const kLaterWave = "run in another wave";
// The reason a test is not run because a test it requires did not pass; scoring counts it as "not counted".
const char* const kNotCountedPrefix = "not counted: ";

// Each test id's ids listed under `key` in lab.json ("requires", "after").
std::map<std::string, std::vector<std::string>> listed_tests(const Json& config, const char* key) {
    std::map<std::string, std::vector<std::string>> found;
    for (const Json& test : config.at("tests"))
        if (test.contains(key)) found[test.at("id")] = test.at(key).get<std::vector<std::string>>();
    return found;
}

// What the tests decided so far tell the processes started later (handed_over.h): each id's outcome (the worst of its
// instances) and the properties later processes read.
nlohmann::json handed_over_of(const SessionResult& session) {
    nlohmann::json out = {{"outcomes", nlohmann::json::object()}, {"properties", nlohmann::json::object()}};
    auto rank = [](const std::string& result) {
        return result == "passed" ? 0 : result == "skipped" ? 1 : 2;  // failed, crashed, timeout
    };
    for (const TestOutcome& t : session.tests) {
        const std::string placeholder = t.properties.value("not_run_because", "");
        if (placeholder == kLaterWave || placeholder == kRunInCpuMode) continue;  // another part's outcome stands
        nlohmann::json& o = out["outcomes"][t.id];
        if (!o.contains("result") || rank(t.result) > rank(o.value("result", "passed"))) o["result"] = t.result;
        if (const std::string because = t.properties.value("not_run_because", ""); !because.empty() &&
                                                                                  !o.contains("not_run_because"))
            o["not_run_because"] = because;
        for (const char* name : kHandedOverProperties)
            if (t.properties.contains(name) && t.properties.at(name).is_string())
                out["properties"][name].push_back(t.properties.at(name));
    }
    return out;
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
    into.filtered = into.filtered || part.filtered;
    into.tests.insert(into.tests.end(), part.tests.begin(), part.tests.end());
}

// A picture the plot worker could not draw is named here: its test said only where it would be.
void report_pictures_not_drawn(const std::string& lab, const std::vector<QueuedPicture>& pictures) {
    std::map<std::string, std::vector<std::string>> not_drawn;  // by reason
    for (const QueuedPicture& p : pictures)
        if (!p.drawn) not_drawn[p.skipped_because].push_back(p.picture);
    for (const auto& [reason, names] : not_drawn) {
        const bool one = names.size() == 1;
        std::cout << "[gpulab] " << lab << ": " << (one ? "picture " + names[0] : std::to_string(names.size()) + " pictures")
                  << " not drawn: " << reason << (one ? "" : " (the data they are drawn from is in the artifacts folder)") << "\n";
    }
}

// One grading's run of the tests: what is decided, what waits, and what every wave's parts share.
class TestRun {
public:
    explicit TestRun(const GradingPlan& plan) : plan_(plan), seed_(plan.request.seed) {
        // Built (where asked) once, not in every wave.
        for (const std::string& mode : plan.modes) companions_[mode] = companions_for(plan, mode);
    }

    // The untimed tests were graded before (make test: in parallel with other checks); they stand as decided, and
    // the timed tests require them as if they had run in this process, on the same seed.
    void import_untimed(const std::string& from) {
        const GradeRequest& request = plan_.request;
        std::set<std::string> not_imported = plan_.timed_ids;
        if (!request.reports) not_imported.insert(plan_.report_ids.begin(), plan_.report_ids.end());
        session_ = load_untimed_outcomes(from, {plan_.manifest.lab, request.solution, request.mode},
                                         plan_.solution.builds.at(request.mode).library, not_imported);
        for (const TestOutcome& t : session_.tests) decided_.insert(t.id);
        if (seed_.empty()) seed_ = session_.seed;
        std::cout << "[gpulab] " << plan_.manifest.lab << ": " << decided_.size() << " untimed tests as graded in " << from
                  << " (seed " << session_.seed << "); running the timed tests ..." << std::endl;
    }

    SessionResult run() {
        // Only report tests draw pictures; a grading without them starts no Python to draw.
        if (plan_.request.reports) plots_.emplace(plan_.work.string());
        const std::map<std::string, std::vector<std::string>> requires_of = listed_tests(plan_.config, "requires");
        const std::map<std::string, std::vector<std::string>> after_of = listed_tests(plan_.config, "after");
        for (const Json& test : plan_.config.at("tests"))
            if (!decided_.count(test.at("id"))) waiting_.insert(test.at("id").get<std::string>());
        for (int wave = 0; (!waiting_.empty() || !beside_.empty()) && session_.tampering.empty(); ++wave) {
            const WavePlan next = plan_wave(waiting_, requires_of, plan_.timed_ids,
                                            [&](const std::string& id) { return passed_or_not_run(session_, id); },
                                            after_of, running_beside_);
            if (next.wait_for_running) {
                join_beside();
                continue;
            }
            // The grading's own mode runs the wave here; the CPU part of a GPU grading (plan_.modes' second) runs
            // beside it and the waves after (start_beside), so nothing in this process shares the GPU with a clock.
            for (const std::string& mode : plan_.modes)
                if (mode != plan_.request.mode)
                    if (std::optional<SessionSpec> part = part_of_wave(mode, next, wave)) start_beside(std::move(*part));
            if (std::optional<SessionSpec> part = part_of_wave(plan_.request.mode, next, wave))
                merge_part(run_session(*part), session_);
            // Placeholders of tests another wave runs are dropped; each test keeps its one real outcome.
            drop_placeholders(session_);
            for (const std::string& id : next.ready) decided_.insert(id), waiting_.erase(id);
            for (const auto& [id, required] : next.not_counted) decided_.insert(id), waiting_.erase(id);
        }
        join_beside();
        if (plots_) report_pictures_not_drawn(plan_.manifest.lab, plots_->finish());
        // The CPU part's outcomes stand in for the placeholders the GPU part left for the same tests.
        std::erase_if(session_.tests, [&](const TestOutcome& t) {
            return plan_.cpu_part && plan_.cpu_only.count(t.id) && t.properties.value("not_run_because", "") == kRunInCpuMode;
        });
        return std::move(session_);
    }

private:
    // CPU execution mode's part of a wave runs beside the waves after it (wave_plan.h): the timed tests that require
    // its counts start while it counts. Its report tests (Report.AccessAnalysis, seconds of counting that nothing
    // requires) run in a second process beside the first, in a folder of their own (`<mode>-reports`): a count
    // protects pages of its whole process, so two counts in one process take turns, and in two they do not.
    void start_beside(SessionSpec spec) {
        join_beside();
        // Two cores stay with the GPU's part, whose timed launches are issued by one host thread.
        const std::size_t cores = allowed_cpus().size();
        const std::string threads = std::to_string(cores > 2 ? cores - 2 : 1);
        spec.env = {{"GPULAB_CPU_THREADS", threads}, {"GPULAB_HOST_THREADS", threads}};
        // No later wave runs them (they are among decided_ once their wave is planned); none waits on them before
        // their session ends.
        for (const std::string& id : spec.only_ids)
            if (waiting_.count(id)) running_beside_.insert(id);
        std::set<std::string> reports;
        for (const std::string& id : spec.only_ids)
            if (plan_.request.reports && plan_.report_ids.count(id)) reports.insert(id);
        if (!reports.empty() && reports.size() < spec.only_ids.size()) {
            SessionSpec report_part = spec;
            report_part.only_ids = reports;
            for (const std::string& id : reports) spec.only_ids.erase(id);
            report_part.work_dir = spec.work_dir + "-reports";
            report_part.continues = !modes_started_.insert(report_part.work_dir).second;
            report_part.listed = nullptr;   // listed in its own process: two sessions must not fill one list
            beside_.push_back(std::async(std::launch::async, [part = std::move(report_part)] { return run_session(part); }));
        }
        beside_.push_back(std::async(std::launch::async, [spec = std::move(spec)] { return run_session(spec); }));
    }

    void join_beside() {
        if (beside_.empty()) return;
        for (std::future<SessionResult>& part : beside_) merge_part(part.get(), session_);
        beside_.clear();
        running_beside_.clear();
        drop_placeholders(session_);
    }

    // The session that runs `mode`'s part of a wave; none where that mode has nothing to run in it.
    std::optional<SessionSpec> part_of_wave(const std::string& mode, const WavePlan& wave_plan, int wave) {
        const GradeRequest& request = plan_.request;
        SessionSpec spec{plan_.manifest.graders.at(mode), plan_.manifest.config, plan_.solution.builds.at(mode).library,
                         plan_.manifest.solutions.at("reference").builds.at(mode).library, companions_.at(mode),
                         (mode == request.mode ? plan_.work : plan_.work / mode).string(), seed_, request.filter};
        spec.test_timeout_s = plan_.solution.test_timeout_s;
        spec.test_timeout_ids = plan_.solution.test_timeout_ids;
        spec.cache_dir = (fs::path(request.build_dir) / "report-cache").string();
        spec.handed_over = handed_over_of(session_);
        if (plots_) spec.plot_queue = plots_->folder();
        spec.listed = &listed_[mode];
        spec.max_hangs = request.max_hangs;
        spec.credit_per_case_ids = plan_.credit_per_case;
        spec.part_label = wave > 0 ? "wave" + std::to_string(wave) + "-" : "";
        spec.left_out = left_out_of_wave(wave_plan);
        if (mode == request.mode) {
            for (const std::string& id : plan_.cpu_only)
                if (wave_plan.ready.count(id))
                    spec.left_out[id] = plan_.cpu_part ? kRunInCpuMode : "needs CPU execution mode, not built here";
        } else {
            for (const std::string& id : plan_.cpu_only)
                if (wave_plan.ready.count(id)) spec.only_ids.insert(id);
            if (spec.only_ids.empty()) return std::nullopt;
        }
        // A mode's first part starts its folder afresh (an earlier grading's logs and progress would count
        // twice); its later parts add to it.
        spec.continues = !modes_started_.insert(mode).second;
        return spec;
    }

    // The tests a wave does not run, each with the reason it reports.
    std::map<std::string, std::string> left_out_of_wave(const WavePlan& wave_plan) const {
        const GradeRequest& request = plan_.request;
        std::map<std::string, std::string> left_out;
        for (const std::string& id : waiting_)
            if (!wave_plan.ready.count(id) && !wave_plan.not_counted.count(id)) left_out[id] = kLaterWave;
        for (const std::string& id : decided_) left_out[id] = kLaterWave;
        for (const auto& [id, required] : wave_plan.not_counted)
            left_out[id] = std::string(kNotCountedPrefix) + required + " did not pass";
        for (const std::string& id : plan_.timed_ids) {
            if (left_out.count(id)) continue;
            if (!request.timing) left_out[id] = "not run: timing left out (--no-timing)";
            else if (!request.time_only.empty() && !request.time_only.count(id))
                left_out[id] = "not run: timing left out (--time-only)";
        }
        if (!request.reports)
            for (const std::string& id : plan_.report_ids)
                if (!left_out.count(id)) left_out[id] = "not run: reports left out (--no-reports)";
        for (const std::string& id : plan_.graded_beside)
            if (!left_out.count(id)) left_out[id] = kGradedBeside;
        return left_out;
    }

    const GradingPlan& plan_;
    std::map<std::string, std::map<std::string, std::string>> companions_;  // by mode
    std::optional<PlotQueue> plots_;  // pictures are drawn beside the tests, by a worker of this process (plot_queue.h)
    std::map<std::string, std::vector<std::string>> listed_;  // each grader binary's tests, listed once
    SessionResult session_;
    std::set<std::string> decided_, waiting_;
    std::vector<std::future<SessionResult>> beside_;  // CPU execution mode's part, running beside (start_beside)
    std::set<std::string> running_beside_;               // its tests, not decided until it ends
    std::string seed_;
    std::set<std::string> modes_started_;
};

}  // namespace

SessionResult run_tests(const GradingPlan& plan) {
    std::cout << "[gpulab] " << plan.manifest.lab << ": running the tests (each in its own process) ..." << std::endl;
    TestRun run(plan);
    if (!plan.request.untimed_from.empty()) run.import_untimed(plan.request.untimed_from);
    return run.run();
}

}  // namespace gpulab::runner
