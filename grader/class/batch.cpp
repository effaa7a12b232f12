#include "batch.h"

#include "child_process.h"
#include "intake.h"
#include "progress.h"
#include "reports.h"
#include "sandbox.h"
#include "text_file.h"
#include "workspace.h"

#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

namespace gpulab::grade_class {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// One GPU per grading at a time: timing must not share a GPU.
class GpuPool {
public:
    explicit GpuPool(std::vector<int> gpus) : free_(std::move(gpus)) {}
    int take() {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return !free_.empty(); });
        const int gpu = free_.back();
        free_.pop_back();
        return gpu;
    }
    void give_back(int gpu) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            free_.push_back(gpu);
        }
        ready_.notify_one();
    }

private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::vector<int> free_;
};

// Runs argv (already wrapped in the sandbox), its output into `log`, killed after `limit_s`.
runner::ExitStatus run_logged(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                              const fs::path& log, int limit_s) {
    const auto started = Clock::now();
    return runner::run_child({argv, env, log.string(), {}},
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

struct Context {
    const BatchOptions& options;
    std::map<std::string, Submission> submissions;
    std::string seed;
    Progress* progress = nullptr;
    GpuPool* gpus = nullptr;
};

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
        const char* path = std::getenv("PATH");
        std::stringstream dirs(path ? path : "");
        std::vector<std::string> seen;
        for (const char* tool : {"cmake", "ctest", "c++", "g++", "nvcc", "make", "gmake", "ninja"}) {
            dirs.clear();
            dirs.seekg(0);
            for (std::string dir; std::getline(dirs, dir, ':');) {
                const fs::path candidate = fs::path(dir) / tool;
                if (dir.empty() || ::access(candidate.c_str(), X_OK) != 0) continue;
                if (std::find(seen.begin(), seen.end(), dir) == seen.end()) {
                    seen.push_back(dir);
                    t.path_prefix += dir + ":";
                }
                // <prefix>/bin/<tool>: the whole prefix (cmake's modules live in <prefix>/share).
                const fs::path prefix = fs::canonical(candidate).parent_path().parent_path();
                if (std::find(t.installations.begin(), t.installations.end(), prefix.string()) == t.installations.end())
                    t.installations.push_back(prefix.string());
                break;
            }
        }
        return t;
    }();
    return found;
}

SandboxSpec sandbox_spec(const Context& c, const Workspace& ws, bool gpu, const std::map<std::string, std::string>& env) {
    SandboxSpec spec;
    spec.path = toolchain().path_prefix + spec.path;
    for (const std::string& prefix : toolchain().installations)
        if (prefix != "/usr" && prefix != "/" && prefix != "/usr/local") spec.read_only_paths.push_back(prefix);
    spec.isolation = c.options.unsandboxed ? Isolation::Unsandboxed : Isolation::Bubblewrap;
    spec.instructor_tree = ws.tree();
    spec.scratch = ws.scratch();
    const fs::path out = fs::absolute(c.options.out);
    spec.hidden_paths = {fs::absolute(c.options.submissions).string(), (out / "db").string(), (out / "students").string(),
                         (out / "work" / "intake").string()};
    spec.needs_gpu = gpu;
    spec.limits.cpu_seconds = long(c.options.lab_time_limit_s) * 4;  // a build uses several cores
    spec.limits.wall_seconds = c.options.lab_time_limit_s;
    spec.env = env;
    return spec;
}

std::vector<std::string> wrapped(const Context& c, const Workspace& ws, bool gpu, const std::map<std::string, std::string>& env,
                                 const std::vector<std::string>& argv) {
    return sandboxed_command(sandbox_spec(c, ws, gpu, env), argv);
}

LabResult grade_one(Context& c, Workspace& ws, const WorkItem& item, const std::string& worker) {
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
    const bool on_gpu = c.options.mode == "gpu";
    std::map<std::string, std::string> env;
    int gpu = -1;
    if (on_gpu) {
        c.progress->started(r.student + " " + r.lab + ": waiting for a GPU");
        gpu = c.gpus->take();
        env["CUDA_VISIBLE_DEVICES"] = std::to_string(gpu);
        r.worker += ":gpu" + std::to_string(gpu);
    }
    c.progress->started(r.student + " " + r.lab + (on_gpu ? ": grading on GPU " + std::to_string(gpu) : ": grading"));
    const auto run_start = Clock::now();
    const runner::ExitStatus status = run_logged(wrapped(c, ws, on_gpu, env, argv), {}, out_dir / "grade.log",
                                                 c.options.lab_time_limit_s);
    if (on_gpu) c.gpus->give_back(gpu);
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
LabResult without_files(const Context& c, const WorkItem& item, const Submission& sub, double max_points) {
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

double lab_max_points(const std::string& tree, const std::string& lab) {
    const nlohmann::json config = nlohmann::json::parse(runner::read_text(fs::path(tree) / "labs" / lab / "lab.json"));
    double total = 0;
    for (const nlohmann::json& t : config.at("tests")) total += t.value("points", 0.0);
    return total;
}

// Whether a user other than the owner may reach `path`: every folder from / down to it lets others through.
bool reachable_by_others(const fs::path& path) {
    fs::path at;
    for (const fs::path& part : fs::absolute(path)) {
        at /= part;
        struct stat st {};
        if (::stat(at.c_str(), &st) != 0) break;  // not made yet: created below a folder that was checked
        if (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH)) return false;
    }
    return true;
}

// Where the workers' copies of the tree and their scratch folders go: <out>/work, unless the grader runs as root
// (the sandboxed code then runs as an unprivileged user) and that user could not reach it: a checkout under a
// folder only root may enter, such as what mktemp -d makes. Then they go to a folder of their own under
// /var/tmp (or $GPULAB_CLASS_WORK_ROOT), mode 0711 with an unguessable name, kept in <out>/work-location so a
// resumed batch finds its workspaces again.
fs::path work_root(const BatchOptions& options) {
    const fs::path usual = fs::absolute(options.out) / "work";
    if (::geteuid() != 0 || options.unsandboxed || reachable_by_others(usual)) return usual;
    const fs::path note = fs::absolute(options.out) / "work-location";
    std::string kept;
    if (std::ifstream in(note); in && std::getline(in, kept) && fs::is_directory(kept)) return kept;
    const char* base = std::getenv("GPULAB_CLASS_WORK_ROOT");
    std::string pattern = (fs::path(base && *base ? base : "/var/tmp") / "gpulab-class-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
        throw std::runtime_error("cannot create a folder for the workspaces under " + fs::path(pattern).parent_path().string() +
                                 ": " + std::strerror(errno) + " (set GPULAB_CLASS_WORK_ROOT to a folder others may enter)");
    ::chmod(pattern.c_str(), 0711);  // the sandbox's user may pass through, not list
    std::ofstream(note) << pattern << "\n";
    std::cout << "[gpulab-grade-class] " << usual.string() << " lies under a folder the sandbox's user ("
              << "nobody) cannot enter, so the workspaces go to " << pattern << " (kept in " << note.string() << ")\n";
    return pattern;
}

}  // namespace

int run_batch(const BatchOptions& options) {
    fs::create_directories(options.out);
    // In a folder of its own, hidden from the student's code like the submissions.
    ResultsDb db(fs::path(options.out) / "db" / "results.sqlite");
    // Hidden from the student's code; a path that does not exist yet could not be hidden.
    fs::create_directories(fs::path(options.out) / "students");
    fs::create_directories(fs::path(options.out) / "work" / "intake");

    // One seed for the whole batch (every student gets the same inputs), kept for reproducing a grade.
    std::string seed = options.seed.empty() ? db.setting("seed").value_or("") : options.seed;
    if (seed.empty()) seed = std::to_string(std::random_device{}() % 1000000000u);
    db.set_setting("seed", seed);
    db.set_setting("mode", options.mode);
    db.set_setting("submissions", fs::absolute(options.submissions).string());

    if (!options.unsandboxed) {
        const SandboxCheck check = sandbox_available();
        if (!check.available) {
            std::cerr << "gpulab-grade-class: the sandbox cannot run here: " << check.problem << "\n" << check.error
                      << "\nStudent code is built and run only inside bubblewrap. Fix the above, or pass --unsandboxed "
                         "to grade without it (student code then runs with your permissions).\n";
            return 3;
        }
    }
    SandboxSpec example;
    example.isolation = options.unsandboxed ? Isolation::Unsandboxed : Isolation::Bubblewrap;
    example.needs_gpu = options.mode == "gpu";
    for (const std::string& warning : sandbox_warnings(example)) std::cerr << "gpulab-grade-class: WARNING: " << warning << "\n";

    std::vector<LabSpec> specs = read_lab_specs((fs::path(options.tree) / "labs").string());
    if (!options.labs.empty())
        std::erase_if(specs, [&](const LabSpec& s) { return std::find(options.labs.begin(), options.labs.end(), s.lab) == options.labs.end(); });
    Context c{options, {}, seed};
    std::vector<FoundSubmission> found;
    for (const std::string& entry : list_submissions(options.submissions)) {
        const std::string student = student_id(entry);
        const fs::path scratch = fs::absolute(options.out) / "work" / "intake" / student;
        fs::remove_all(scratch);  // ours: written by an earlier intake of this batch
        Submission sub = take_submission(entry, scratch.string(), specs);
        // What the student should read about their submission itself, per lab, for the feedback.
        nlohmann::json notes = nlohmann::json::object();
        for (const LabSpec& spec : specs) {
            const LabFiles* lab = sub.lab(spec.lab);
            found.push_back({student, spec.lab, lab && !lab->empty() ? lab->content_hash : "empty"});
            std::vector<std::string> lines = sub.notes;
            if (!sub.problem.empty()) lines.push_back(sub.problem);
            if (lab) {
                lines.insert(lines.end(), lab->notes.begin(), lab->notes.end());
                for (const std::string& m : lab->missing) lines.push_back("not found in your submission: " + m);
            }
            for (const std::string& i : sub.ignored) lines.push_back("ignored (not one of the lab's files): " + i);
            notes[spec.lab] = lines;
        }
        std::ofstream(scratch.string() + ".notes.json") << notes.dump(1) << "\n";
        c.submissions.emplace(student, std::move(sub));
    }
    if (options.regrade_requested) db.mark_for_regrade(options.regrade);
    WorkListOptions list_options;
    list_options.grader_version = options.grader_version;
    const std::vector<WorkItem> work = db.work_list(found, list_options);

    Progress progress(int(work.size()), options.terminal);
    c.progress = &progress;
    GpuPool gpus(options.gpus);
    c.gpus = &gpus;
    std::vector<WorkItem> to_build;
    for (const WorkItem& item : work) {
        const Submission& sub = c.submissions.at(item.submission.student);
        if (item.submission.content_hash == "empty") {
            db.store(without_files(c, item, sub, lab_max_points(options.tree, item.submission.lab)));
            progress.finished(item.submission.student + " " + item.submission.lab + ": empty", true);
        } else {
            to_build.push_back(item);
        }
    }

    const fs::path workspaces = work_root(options);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stopped{false};
    std::mutex error_mutex;
    std::string error;
    std::vector<std::thread> workers;
    const int worker_count = std::max(1, std::min<int>(options.workers, int(to_build.size())));
    for (int w = 0; w < worker_count && !to_build.empty(); ++w)
        workers.emplace_back([&, w] {
            try {
                ResultsDb mine(db.path());  // a connection per thread
                Workspace ws({options.tree, (workspaces / ("worker-" + std::to_string(w))).string(),
                              [&] {
                                  std::vector<std::string> labs;
                                  for (const LabSpec& s : specs) labs.push_back(s.lab);
                                  return labs;
                              }(),
                              options.cmake_args});
                progress.note("[gpulab-grade-class] worker " + std::to_string(w) + ": preparing its copy of the tree (first time only)");
                ws.prepare();
                char host[256] = "";
                ::gethostname(host, sizeof host - 1);
                for (std::size_t i; !stopped && (i = next++) < to_build.size();) {
                    const WorkItem& item = to_build[i];
                    progress.started(item.submission.student + " " + item.submission.lab + ": building");
                    const LabResult r = grade_one(c, ws, item, std::string(host) + ":w" + std::to_string(w));
                    mine.store(r);
                    progress.finished(r.student + " " + r.lab + ": " + r.status + " " + std::to_string(int(r.points)) + "/" +
                                          std::to_string(int(r.max_points)),
                                      r.status != status::graded || r.points < r.max_points);
                }
            } catch (const std::exception& e) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (error.empty()) error = e.what();
                stopped = true;
            }
        });
    for (std::thread& t : workers) t.join();
    write_reports(options, db);
    if (!error.empty()) {
        std::cerr << "gpulab-grade-class: stopped: " << error << "\nEvery result finished before this is stored; run the "
                     "same command again to go on.\n";
        return 1;
    }
    return 0;
}

void write_reports(const BatchOptions& options, ResultsDb& db) {
    std::vector<std::string> labs;
    for (const LabSpec& s : read_lab_specs((fs::path(options.tree) / "labs").string()))
        if (options.labs.empty() || std::find(options.labs.begin(), options.labs.end(), s.lab) != options.labs.end())
            labs.push_back(s.lab);
    std::map<std::string, std::vector<GradedLab>> by_student;
    std::vector<GradedLab> all;
    for (const LabResult& r : db.all_results()) {
        if (std::find(labs.begin(), labs.end(), r.lab) == labs.end()) continue;
        GradedLab g;
        g.student = r.student;
        g.lab = r.lab;
        g.status = r.status;
        g.points = r.points;
        g.max_points = r.max_points;
        g.result = r.result;
        g.mode = db.setting("mode").value_or("");
        g.gpu_name = r.gpu_name;
        g.driver_version = r.driver_version;
        g.grader_version = r.grader_version;
        g.seed = std::to_string(r.seed);
        const fs::path intake_notes = fs::absolute(options.out) / "work" / "intake" / (r.student + ".notes.json");
        if (fs::exists(intake_notes)) {
            const nlohmann::json notes = nlohmann::json::parse(runner::read_text(intake_notes));
            if (notes.contains(r.lab)) g.notes = notes.at(r.lab).get<std::vector<std::string>>();
        }
        by_student[r.student].push_back(g);
        all.push_back(g);
    }
    const fs::path out = fs::absolute(options.out);
    write_gradebook_csv(out / "gradebook.csv", labs, all);
    for (const auto& [student, results] : by_student) {
        const fs::path dir = out / "students" / student;
        fs::create_directories(dir);
        std::ofstream(dir / "results.json") << gradescope_results_json(results).dump(2) << "\n";
        write_feedback(dir, student, results);
    }
    write_overview(out / "overview", all);
}

}  // namespace gpulab::grade_class
