#include "batch.h"

#include "cpu_shares.h"
#include "grade_one.h"
#include "progress.h"
#include "reports.h"
#include "sandbox.h"
#include "text_file.h"
#include "workspace.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <utility>

namespace gpulab::grade_class {

namespace fs = std::filesystem;

std::string host_name() {
    char host[256] = "";
    ::gethostname(host, sizeof host - 1);
    const std::string full = host;
    return full.substr(0, full.find('.'));
}

std::vector<LabSpec> graded_labs(const BatchOptions& options) {
    std::vector<LabSpec> specs = read_lab_specs((fs::path(options.tree) / "labs").string());
    if (!options.labs.empty())
        std::erase_if(specs, [&](const LabSpec& s) { return std::find(options.labs.begin(), options.labs.end(), s.lab) == options.labs.end(); });
    return specs;
}

void add_default_cuda_compiler(BatchOptions& options) {
    for (const std::string& arg : options.cmake_args)
        if (arg.rfind("-DCMAKE_CUDA_COMPILER", 0) == 0 || arg.rfind("-DGPULAB_CUDA=", 0) == 0) return;
    // A class graded in CPU execution mode runs no nvcc build: leaving them out halves a workspace's build.
    if (options.mode == "cpu") {
        options.cmake_args.push_back("-DGPULAB_CUDA=OFF");
        return;
    }
    if (std::getenv("CUDACXX") == nullptr && fs::exists("/usr/local/cuda/bin/nvcc"))
        options.cmake_args.push_back("-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc");
}

ClassIntake take_class(const BatchOptions& options, ResultsDb& db) {
    // Hidden from the student's code; a path that does not exist yet could not be hidden.
    fs::create_directories(fs::path(options.out) / "students");
    fs::create_directories(fs::path(options.out) / "work" / "intake");

    ClassIntake intake;
    // One seed for the whole batch (every student gets the same inputs), kept for reproducing a grade.
    intake.seed = options.seed.empty() ? db.setting("seed").value_or("") : options.seed;
    if (intake.seed.empty()) intake.seed = std::to_string(std::random_device{}() % 1000000000u);
    db.set_setting("seed", intake.seed);
    db.set_setting("mode", options.mode);
    db.set_setting("submissions", fs::absolute(options.submissions).string());

    intake.specs = graded_labs(options);
    for (const std::string& entry : list_submissions(options.submissions)) {
        const std::string student = student_id(entry);
        const fs::path scratch = fs::absolute(options.out) / "work" / "intake" / student;
        fs::remove_all(scratch);  // ours: written by an earlier intake of this batch
        Submission sub = take_submission(entry, scratch.string(), intake.specs);
        // What the student should read about their submission itself, per lab, for the feedback.
        nlohmann::json notes = nlohmann::json::object();
        for (const LabSpec& spec : intake.specs) {
            const LabFiles* lab = sub.lab(spec.lab);
            intake.found.push_back({student, spec.lab, lab && !lab->empty() ? lab->content_hash : "empty"});
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
        intake.submissions.emplace(student, std::move(sub));
    }
    if (options.regrade_requested) db.mark_for_regrade(options.regrade);
    return intake;
}

std::vector<WorkItem> work_to_do(const BatchOptions& options, const ResultsDb& db, const ClassIntake& intake) {
    WorkListOptions list_options;
    list_options.grader_version = options.grader_version;
    return db.work_list(intake.found, list_options);
}

std::string workspaces_root(const BatchOptions& options) {
    if (options.workspaces.empty()) return default_work_root(options.out, options.unsandboxed);
    // %N: this node's short host name, as in Slurm's own file name patterns (a node-local folder per node).
    std::string root = options.workspaces;
    for (std::size_t at; (at = root.find("%N")) != std::string::npos;) root.replace(at, 2, host_name());
    // As root the sandboxed code runs as nobody, who must reach the build folder (default_work_root's reason).
    if (::geteuid() == 0 && !options.unsandboxed && !reachable_by_others(root))
        throw std::runtime_error("--workspaces " + root + " lies under a folder the sandbox's user (nobody) cannot enter; "
                                 "name a folder others may pass through");
    return fs::absolute(root).string();
}

WorkspaceSpec workspace_spec(const BatchOptions& options, const std::vector<LabSpec>& specs, const std::string& dir) {
    WorkspaceSpec spec{options.tree, dir, {}, options.cmake_args, options.grader_version};
    spec.build_jobs = std::max(1, int(runner::allowed_cpus().size()));
    for (const LabSpec& s : specs) spec.labs.push_back(s.lab);
    return spec;
}

bool sandbox_usable(const BatchOptions& options) {
    if (!options.unsandboxed) {
        const SandboxCheck check = sandbox_available();
        if (!check.available) {
            std::cerr << "gpulab-grade-class: the sandbox cannot run here: " << check.problem << "\n" << check.error
                      << "\nStudent code is built and run only inside bubblewrap. Fix the above, or pass --unsandboxed "
                         "to grade without it (student code then runs with your permissions).\n";
            return false;
        }
    }
    SandboxSpec example;
    example.isolation = options.unsandboxed ? Isolation::Unsandboxed : Isolation::Bubblewrap;
    example.needs_gpu = options.mode == "gpu";
    for (const std::string& warning : sandbox_warnings(example)) std::cerr << "gpulab-grade-class: WARNING: " << warning << "\n";
    return true;
}

int run_batch(const BatchOptions& options) {
    fs::create_directories(options.out);
    // In a folder of its own, hidden from the student's code like the submissions.
    ResultsDb db(fs::path(options.out) / "db" / "results.sqlite");
    if (!sandbox_usable(options)) return 3;
    ClassIntake intake = take_class(options, db);
    const std::vector<WorkItem> work = work_to_do(options, db, intake);

    Progress progress(int(work.size()), options.terminal);
    // Untimed gradings share a GPU; a timed one has it to itself.
    GpuPool gpus(options.gpus, options.workers, options.no_timing ? options.workers : 1);
    GradingContext c{options, std::move(intake.submissions), intake.seed, &progress, &gpus};
    if (!gpus.describe().empty()) progress.note("[gpulab-grade-class] each GPU's gradings keep to their own cores: " + gpus.describe());
    const std::vector<WorkItem> to_build = store_empty_labs(c, db, work);

    const std::string workspaces = workspaces_root(options);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stopped{false};
    std::mutex error_mutex;
    std::string error;
    std::vector<std::thread> workers;
    const int worker_count = std::max(1, std::min<int>(options.workers, int(to_build.size())));
    // The workspaces are prepared one at a time, each with every core: the first worker grades minutes sooner than if
    // all were built side by side, and a compiler cache (make test's ccache) hands the next ones, laid out alike, the
    // first one's objects. Timed gradings start once every workspace is ready: no build shares the host with a timed test.
    std::mutex one_preparation;
    std::mutex ready_mutex;
    std::condition_variable all_ready;
    int not_ready = worker_count;
    const auto mark_ready = [&] {
        std::lock_guard<std::mutex> lock(ready_mutex);
        if (--not_ready == 0) all_ready.notify_all();
    };
    for (int w = 0; w < worker_count && !to_build.empty(); ++w)
        workers.emplace_back([&, w] {
            bool marked = false;  // this worker's workspace counted as ready (or failed): others may go on
            const auto mark = [&] {
                if (!std::exchange(marked, true)) mark_ready();
            };
            try {
                ResultsDb mine(db.path());  // a connection per thread
                const WorkspaceSlot slot(workspaces);
                Workspace ws(workspace_spec(options, intake.specs, slot.dir()));
                {
                    std::lock_guard<std::mutex> lock(one_preparation);
                    if (stopped) {  // another workspace failed to prepare: the batch stops
                        mark();
                        return;
                    }
                    progress.note("[gpulab-grade-class] worker " + std::to_string(w) +
                                  (ws.prepared() ? ": its copy of the tree in " + slot.dir() + " is prepared already (an earlier run's)"
                                                 : ": preparing its copy of the tree (first time only)"));
                    ws.prepare();
                }
                mark();
                if (!options.no_timing) {
                    std::unique_lock<std::mutex> lock(ready_mutex);
                    all_ready.wait(lock, [&] { return not_ready == 0; });
                }
                for (std::size_t i; !stopped && (i = next++) < to_build.size();) {
                    const WorkItem& item = to_build[i];
                    progress.started(item.submission.student + " " + item.submission.lab + ": building");
                    const LabResult r = grade_one(c, ws, item, host_name() + ":w" + std::to_string(slot.index()));
                    mine.store(r);
                    progress.finished(r.student + " " + r.lab + ": " + r.status + " " + std::to_string(int(r.points)) + "/" +
                                          std::to_string(int(r.max_points)),
                                      r.status != status::graded || r.points < r.max_points);
                }
            } catch (const std::exception& e) {
                {
                    std::lock_guard<std::mutex> lock(error_mutex);
                    if (error.empty()) error = e.what();
                    stopped = true;
                }
                mark();
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