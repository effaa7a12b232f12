#include "grade_one.h"

#include "child_process.h"
#include "cpu_shares.h"
#include "reports.h"
#include "sandbox.h"
#include "text_file.h"

#include "gpulab/program_on_path.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>

namespace gpulab::grade_class {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

GpuPool::GpuPool(const std::vector<std::string>& gpus, int gradings_at_once, int turns_per_gpu) {
    const bool side_by_side = gpus.size() > 1 && gradings_at_once > 1;
    const std::vector<std::vector<int>> shares =
        side_by_side ? runner::cpu_shares(runner::allowed_cpus(), int(gpus.size())) : std::vector<std::vector<int>>(gpus.size());
    for (std::size_t i = 0; i < gpus.size(); ++i) all_.push_back({gpus[i], shares[i]});
    // Taken from the back: the first GPU first, then the next, each GPU's second turn after every GPU's first.
    for (int turn = 0; turn < std::max(1, turns_per_gpu); ++turn) free_.insert(free_.begin(), all_.rbegin(), all_.rend());
}

GpuTurn GpuPool::take() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !free_.empty(); });
    const GpuTurn turn = free_.back();
    free_.pop_back();
    return turn;
}

void GpuPool::give_back(const GpuTurn& turn) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        free_.push_back(turn);
    }
    ready_.notify_one();
}

std::string GpuPool::describe() const {
    std::string text;
    for (const GpuTurn& turn : all_) {
        if (turn.cpus.empty()) continue;
        if (!text.empty()) text += ", ";
        text += "GPU " + turn.gpu + " with cores " + runner::cpu_list_text(turn.cpus);
    }
    return text;
}

namespace {

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Runs argv (already wrapped in the sandbox), its output into `log`, killed after `limit_s`, on `cpus` (empty: on
// any of this process's cores).
runner::ExitStatus run_logged(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                              const fs::path& log, int limit_s, const std::vector<int>& cpus = {}) {
    const auto started = Clock::now();
    return runner::run_child({argv, env, log.string(), {}, cpus},
                             [&] { return Clock::now() - started < std::chrono::seconds(limit_s); });
}

// The build targets of a lab's starter in this workspace (from the build's lab manifest).
std::vector<std::string> starter_targets(const Workspace& ws, const std::string& lab) {
    const nlohmann::json manifest = nlohmann::json::parse(runner::read_text(fs::path(ws.build()) / "gpulab-labs" / (lab + ".json")));
    std::vector<std::string> targets;
    for (const auto& [mode, build] : manifest.at("solutions").at("starter").items())
        if (build.is_object() && build.contains("target")) targets.push_back(build.at("target"));
    return targets;
}


// One step (a build, a grading) of a submission in the sandbox: the workspace's tree read-only, its scratch
// (build folder and run logs) the only writable place, the batch's own files hidden.
// The build tools as this process finds them on its PATH (cmake, a compiler, nvcc): the sandbox's PATH starts
// with their folders, and their installations stay readable even where they live under a hidden folder
// (a cmake installed into /root/.local, say).
struct Toolchain {
    std::string path_prefix;
    std::vector<std::string> installations;
};

const Toolchain& toolchain() {
    static const Toolchain found = [] {
        Toolchain t;
        std::vector<std::string> seen;
        for (const char* tool : {"cmake", "ctest", "c++", "g++", "nvcc", "make", "gmake", "ninja"}) {
            const std::string found = program_on_path(tool);
            if (found.empty()) continue;
            const std::string dir = fs::path(found).parent_path().string();
            if (std::find(seen.begin(), seen.end(), dir) == seen.end()) {
                seen.push_back(dir);
                t.path_prefix += dir + ":";
            }
            // <prefix>/bin/<tool>: the whole prefix (cmake's modules live in <prefix>/share).
            const fs::path prefix = fs::canonical(found).parent_path().parent_path();
            if (std::find(t.installations.begin(), t.installations.end(), prefix.string()) == t.installations.end())
                t.installations.push_back(prefix.string());
        }
        return t;
    }();
    return found;
}

SandboxSpec sandbox_spec(const GradingContext& c, const Workspace& ws, bool gpu, const std::map<std::string, std::string>& env) {
    SandboxSpec spec;
    spec.path = toolchain().path_prefix + spec.path;
    for (const std::string& prefix : toolchain().installations)
        if (prefix != "/usr" && prefix != "/" && prefix != "/usr/local") spec.read_only_paths.push_back(prefix);
    spec.isolation = c.options.unsandboxed ? Isolation::Unsandboxed : Isolation::Bubblewrap;
    spec.instructor_tree = ws.tree();
    spec.scratch = ws.build();  // the one writable folder: the build and the run logs
    const fs::path out = fs::absolute(c.options.out);
    // slurm/: the shards and the other students' result files of a cluster batch (slurm_submit.cpp).
    spec.hidden_paths = {fs::absolute(c.options.submissions).string(), (out / "db").string(), (out / "students").string(),
                         (out / "work" / "intake").string(), (out / "slurm").string()};
    spec.needs_gpu = gpu;
    spec.limits.cpu_seconds = long(c.options.lab_time_limit_s) * 4;  // a build uses several cores
    spec.limits.wall_seconds = c.options.lab_time_limit_s;
    spec.env = env;
    return spec;
}

std::vector<std::string> wrapped(const GradingContext& c, const Workspace& ws, bool gpu, const std::map<std::string, std::string>& env,
                                 const std::vector<std::string>& argv) {
    return sandboxed_command(sandbox_spec(c, ws, gpu, env), argv);
}

// The worker's copy of the tree as the student knows it: "starter/01-heat-rod/heat_rod.cu(23): error ..." rather
// than /var/tmp/.../worker-3/tree/starter/..., which says nothing to a student and differs with the worker that
// happened to build the submission (the same submission graded twice would get two different messages).
void paths_relative_to_tree(nlohmann::json& value, const std::string& tree) {
    if (value.is_string()) {
        std::string text = value.get<std::string>();
        const std::string prefix = tree + "/";
        for (std::size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at)) text.erase(at, prefix.size());
        value = text;
    } else if (value.is_structured()) {
        for (nlohmann::json& item : value) paths_relative_to_tree(item, tree);
    }
}

}  // namespace

LabResult grade_one(GradingContext& c, Workspace& ws, const WorkItem& item, const std::string& worker) {
    const Submission& sub = c.submissions.at(item.submission.student);
    const LabFiles* files = sub.lab(item.submission.lab);
    LabResult r;
    r.student = item.submission.student;
    r.lab = item.submission.lab;
    r.content_hash = item.submission.content_hash;
    r.grader_version = c.options.grader_version;
    r.seed = std::stoull(c.seed);
    r.worker = worker;

    std::vector<std::pair<std::string, std::string>> placed(files->files.begin(), files->files.end());
    ws.place(r.lab, placed);
    const fs::path out_dir = ws.run_dir(r.student, r.lab);
    fs::remove_all(out_dir);
    fs::create_directories(out_dir);
    prepare_scratch(sandbox_spec(c, ws, false, {}));  // the sandbox's user may write the build folder and the logs

    // Build first, outside any GPU's turn: builds run in parallel on the CPU cores.
    const auto build_start = Clock::now();
    bool built = true;
    for (const std::string& target : starter_targets(ws, r.lab)) {
        const runner::ExitStatus status =
            run_logged(wrapped(c, ws, false, {}, {"cmake", "--build", ws.build(), "--target", target}), {},
                       out_dir / "build-step.log", c.options.lab_time_limit_s);
        built = built && status.exited && status.code == 0;
    }
    r.build_seconds = seconds_since(build_start);

    // Grade: on a GPU, one at a time per GPU. A failed build is graded without --no-build: gpulab-grade
    // tries it again, fails the same way and reports the compiler's message; nothing of it runs.
    std::vector<std::string> argv = grade_command(ws, r.lab, c.options.mode, c.seed, out_dir.string(), c.options.max_hangs);
    if (built) argv.push_back("--no-build");
    if (c.options.no_timing) argv.push_back("--no-timing");
    const bool on_gpu = c.options.mode == "gpu";
    std::map<std::string, std::string> env;
    // gpulab-grade's tests read their limit from lab.json, or from this variable where it is set (the grader's
    // timeout_for): the same limit for every test of the lab.
    if (c.options.test_time_limit_s) env["GPULAB_TEST_TIMEOUT_S"] = std::to_string(c.options.test_time_limit_s);
    GpuTurn turn;
    if (on_gpu) {
        c.progress->started(r.student + " " + r.lab + ": waiting for a GPU");
        turn = c.gpus->take();
        env["CUDA_VISIBLE_DEVICES"] = turn.gpu;
        r.worker += ":gpu" + turn.gpu;
        if (!turn.cpus.empty()) {
            // Kept to its share of the cores, and told so: the harness's and CPU execution mode's thread pools
            // follow the affinity mask, and these say the same where a sandbox's launcher might not keep it.
            env["GPULAB_HOST_THREADS"] = std::to_string(turn.cpus.size());
            env["GPULAB_CPU_THREADS"] = std::to_string(turn.cpus.size());
        }
    }
    c.progress->started(r.student + " " + r.lab + (on_gpu ? ": grading on GPU " + turn.gpu : ": grading"));
    const auto run_start = Clock::now();
    const runner::ExitStatus status = run_logged(wrapped(c, ws, on_gpu, env, argv), {}, out_dir / "grade.log",
                                                 c.options.lab_time_limit_s, turn.cpus);
    if (on_gpu) c.gpus->give_back(turn);
    r.run_seconds = seconds_since(run_start);

    // The raw results beside the student's feedback (hidden from other submissions' code, unlike the run
    // folder): summary.json, the grader's log and GoogleTest's JUnit XML.
    const fs::path raw = fs::absolute(c.options.out) / "students" / r.student / "raw" / r.lab;
    fs::remove_all(raw);
    fs::create_directories(raw);
    if (fs::exists(out_dir / "summary.json")) fs::copy_file(out_dir / "summary.json", raw / "summary.json");
    if (fs::is_directory(out_dir / r.lab))
        for (const auto& entry : fs::directory_iterator(out_dir / r.lab))
            if (entry.is_regular_file() && (entry.path().extension() == ".xml" || entry.path().filename() == "tests.log"))
                fs::copy_file(entry.path(), raw / entry.path().filename());

    const fs::path summary_path = out_dir / "summary.json";
    if (!fs::exists(summary_path)) {
        r.status = status::grader_error;
        r.result = {{"grader_error", "gpulab-grade ended (" + status.describe() + ") without a summary; the end of its log:\n" +
                                         runner::tail_of(runner::read_text(out_dir / "grade.log"), 2000)}};
        return r;
    }
    const nlohmann::json summary = nlohmann::json::parse(runner::read_text(summary_path));
    for (const nlohmann::json& lab : summary.value("labs", nlohmann::json::array()))
        if (lab.value("lab", "") == r.lab) r.result = lab;
    paths_relative_to_tree(r.result, ws.tree());
    paths_relative_to_tree(r.result, fs::weakly_canonical(ws.tree()).string());  // as the compiler saw it, links resolved
    if (r.result.is_null()) {
        r.status = status::grader_error;
        r.result = {{"grader_error", "summary.json has no entry for " + r.lab}};
        return r;
    }
    r.status = status_of(r.result);
    r.points = r.result.value("points", 0.0);
    r.max_points = r.result.value("max_points", 0.0);
    if (summary.contains("device") && summary.at("device").is_object()) {
        const nlohmann::json& d = summary.at("device");
        if (!d.value("emulated", false)) r.gpu_name = d.value("name", "");
        if (d.contains("driver_version")) r.driver_version = d.at("driver_version").dump();
    }
    return r;
}

// A submission-lab the intake found nothing (or nothing readable) for: stored without building anything.
LabResult without_files(const GradingContext& c, const WorkItem& item, const Submission& sub, double max_points) {
    LabResult r;
    r.student = item.submission.student;
    r.lab = item.submission.lab;
    r.content_hash = item.submission.content_hash;
    r.status = status::empty;
    r.max_points = max_points;
    r.grader_version = c.options.grader_version;
    r.seed = std::stoull(c.seed);
    r.worker = "intake";
    r.result = {{"lab", r.lab}, {"points", 0}, {"max_points", max_points},
                {"empty_because", sub.problem.empty() ? "the submission has none of this lab's files" : sub.problem}};
    return r;
}

std::vector<WorkItem> store_empty_labs(GradingContext& c, ResultsDb& db, const std::vector<WorkItem>& work) {
    std::vector<WorkItem> to_build;
    for (const WorkItem& item : work) {
        if (item.submission.content_hash == "empty") {
            const Submission& sub = c.submissions.at(item.submission.student);
            db.store(without_files(c, item, sub, lab_max_points(c.options.tree, item.submission.lab)));
            c.progress->finished(item.submission.student + " " + item.submission.lab + ": empty", true);
        } else {
            to_build.push_back(item);
        }
    }
    return to_build;
}

double lab_max_points(const std::string& tree, const std::string& lab) {
    const nlohmann::json config = nlohmann::json::parse(runner::read_text(fs::path(tree) / "labs" / lab / "lab.json"));
    double total = 0;
    for (const nlohmann::json& t : config.at("tests")) total += t.value("points", 0.0);
    return total;
}

}  // namespace gpulab::grade_class
