#include "slurm_submit.h"

#include "grade_one.h"
#include "result_files.h"
#include "slurm_batch.h"
#include "slurm_commands.h"
#include "text_file.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

namespace gpulab::grade_class {

namespace fs = std::filesystem;

namespace {

std::string shell_quoted(const std::string& text) {
    std::string out = "'";
    for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
}

// The batch script: Slurm's options as #SBATCH lines (readable, and what an admin would write), the course's
// prelude (module load ...), then this program in task mode. --array is given to sbatch with the script.
std::string batch_script(const BatchOptions& options, const SlurmOptions& slurm, const SlurmBatch& batch) {
    std::ostringstream s;
    s << "#!/bin/bash\n"
      << "# Written by gpulab-grade-class --slurm: array task K grades shard-K.json of this folder and writes one\n"
      << "# result file per submission-lab to results/; the submitting command imports them into the class database.\n"
      << "#SBATCH --job-name=gpulab-class\n"
      << "#SBATCH --chdir=" << batch.dir.string() << "\n"
      << "#SBATCH --output=" << (batch.dir / "logs" / "%A_%a.out").string() << "\n";
    if (!slurm.partition.empty()) s << "#SBATCH --partition=" << slurm.partition << "\n";
    if (!slurm.account.empty()) s << "#SBATCH --account=" << slurm.account << "\n";
    if (!slurm.time_limit.empty()) s << "#SBATCH --time=" << slurm.time_limit << "\n";
    const std::string gres = !slurm.gres.empty() ? slurm.gres : options.mode == "gpu" ? "gpu:1" : "";
    if (!gres.empty() && gres != "none") s << "#SBATCH --gres=" << gres << "\n";
    if (slurm.cpus_per_task > 0) s << "#SBATCH --cpus-per-task=" << slurm.cpus_per_task << "\n";
    for (const std::string& arg : slurm.sbatch_args) s << "#SBATCH " << arg << "\n";
    for (const std::string& line : slurm.prelude) s << line << "\n";
    s << "exec " << shell_quoted(slurm.program) << " --slurm-task " << shell_quoted(batch.dir.string()) << "\n";
    return s.str();
}

// One submitted array: its shards and what Slurm says of its tasks.
struct Watched {
    SlurmBatch batch;
    std::vector<std::vector<ShardItem>> shards;
    std::map<int, TaskState> states;
    std::string source;       // where the ended tasks' states came from
    std::set<int> reported;   // failed tasks already named
};

Watched watch(const SlurmBatch& batch) {
    Watched w{batch, {}, {}, "", {}};
    for (int k = 0; k < batch.tasks; ++k) w.shards.push_back(read_shard(batch, k));
    return w;
}

nlohmann::json task_record(const SlurmBatch& batch, int task) {
    try {
        if (fs::exists(batch.task_record(task))) return nlohmann::json::parse(runner::read_text(batch.task_record(task)));
    } catch (const std::exception&) {
    }
    return nlohmann::json::object();
}

// What became of each array task: squeue for the tasks the controller still lists (pending, running, and ended
// ones for MinJobAge, with their exit code and reason), sacct for the ended ones: from slurmdbd where the cluster
// keeps accounting, else from the job completion log for the tasks squeue no longer lists (sacct -c, which knows
// tasks by their own job ids only: the tasks record theirs), else the tasks' own records.
void query(Watched& w) {
    std::map<int, TaskState> states;
    const CommandResult queue = run_command(squeue_command(w.batch.job_id));
    if (queue.status == 0) {
        states = parse_squeue(queue.out);
    } else if (queue.err.find("Invalid job id") == std::string::npos) {
        // Not "the controller forgot this job" but squeue failing (slurmctld busy or down): what we knew stands.
        if (w.states.empty())
            throw std::runtime_error("squeue cannot say what became of job " + w.batch.job_id + ": " +
                                     (queue.started ? queue.err : std::string("squeue is not on the PATH")));
        return;
    }
    w.source = "squeue";
    const CommandResult accounting = run_command(sacct_command(w.batch.job_id));
    std::map<int, TaskState> ended = accounting.status == 0 ? parse_sacct(accounting.out) : std::map<int, TaskState>{};
    if (!ended.empty()) {
        w.source = "squeue and sacct";
    } else if (int(states.size()) < w.batch.tasks) {
        std::map<std::string, int> task_of_job;
        for (int k = 0; k < w.batch.tasks; ++k) {
            const std::string job = task_record(w.batch, k).value("job_id", "");
            if (!job.empty()) task_of_job[job] = k;
        }
        const CommandResult completion = run_command(sacct_completion_command());
        if (completion.status == 0) ended = parse_sacct_completion(completion.out, task_of_job);
        std::erase_if(ended, [&](const auto& entry) { return states.count(entry.first) > 0; });
        if (!ended.empty()) w.source = "squeue, and sacct -c for the tasks squeue no longer lists (the job completion log: no slurmdbd here)";
    }
    for (auto& [task, state] : ended) {
        const auto listed = states.find(task);
        if (listed != states.end() && is_live(listed->second.state)) continue;  // requeued: running again
        states[task] = state;
    }
    // Tasks Slurm no longer lists (past MinJobAge, no accounting): what they recorded themselves.
    for (int k = 0; k < w.batch.tasks; ++k) {
        if (states.count(k)) continue;
        const nlohmann::json record = task_record(w.batch, k);
        TaskState t;
        t.task = k;
        t.job_id = record.value("job_id", "");
        t.node = record.value("node", "");
        const std::string said = record.value("state", "");
        t.state = said == "finished" ? "COMPLETED" : said.empty() ? "UNKNOWN" : "FAILED";
        t.reason = said == "finished" ? "None" : said.empty() ? "Slurm no longer lists it and it never started"
                                                             : "Slurm no longer lists it; it started and did not finish";
        states[k] = t;
    }
    w.states = states;
}

std::string tail_lines(const std::string& text, int lines) {
    std::size_t at = text.size();
    while (at > 0 && (text[at - 1] == '\n' || text[at - 1] == ' ')) --at;
    const std::size_t end = at;
    for (int n = 0; n < lines && at > 0; ++n) at = text.rfind('\n', at - 1) == std::string::npos ? 0 : text.rfind('\n', at - 1);
    if (at < end && text[at] == '\n') ++at;
    return text.substr(at, end - at);
}

// The submission-labs of task k's shard that have no result file.
std::vector<std::string> lost_by(const Watched& w, int k) {
    std::vector<std::string> lost;
    for (const ShardItem& item : w.shards.at(k))
        if (!fs::exists(result_file_path(w.batch.results_dir(), item.work.submission.student, item.work.submission.lab)))
            lost.push_back(item.work.submission.student + " " + item.work.submission.lab);
    return lost;
}

std::string describe_failure(const Watched& w, int k) {
    const TaskState& t = w.states.at(k);
    std::ostringstream s;
    s << "[gpulab-grade-class] array task " << k << " (job " << w.batch.job_id << "_" << k << ") " << t.state;
    if (!t.node.empty()) s << " on " << t.node;
    if (!t.elapsed.empty()) s << " after " << t.elapsed;
    if (!t.exit_code.empty()) s << ", exit " << t.exit_code;
    if (!t.reason.empty() && t.reason != "None") s << ", reason " << t.reason;
    const std::vector<std::string> lost = lost_by(w, k);
    s << ": " << lost.size() << " of its " << w.shards.at(k).size() << " submission-lab(s) have no result";
    for (std::size_t i = 0; i < lost.size(); ++i) s << (i ? ", " : " (") << lost[i] << (i + 1 == lost.size() ? ")" : "");
    const fs::path log = w.batch.log_path(k);
    if (fs::exists(log)) s << ". The end of " << log.string() << ":\n" << tail_lines(runner::read_text(log), 4);
    return s.str();
}

// Every task's end, as a table (what sacct says, with the results each task left).
void print_summary(const Watched& w) {
    std::ostringstream s;
    s << "[gpulab-grade-class] job " << w.batch.job_id << " (" << w.batch.dir.filename().string() << ", " << w.batch.tasks
      << " array tasks), from " << w.source << ":\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-5s %-10s %-14s %-6s %-20s %-12s %-11s %s\n", "task", "job id", "state", "exit", "reason",
                  "node", "elapsed", "results");
    s << line;
    for (const auto& [k, t] : w.states) {
        const std::size_t total = w.shards.at(k).size();
        const std::size_t have = total - lost_by(w, k).size();
        std::snprintf(line, sizeof line, "  %-5d %-10s %-14s %-6s %-20s %-12s %-11s %zu/%zu\n", k, t.job_id.c_str(), t.state.c_str(),
                      t.exit_code.c_str(), t.reason.c_str(), t.node.c_str(), t.elapsed.c_str(), have, total);
        s << line;
    }
    std::cerr << s.str();
}

class ClusterRun {
public:
    ClusterRun(const BatchOptions& options, const SlurmOptions& slurm, ResultsDb& db, ClassIntake& intake)
        : options_(options), slurm_(slurm), db_(db), intake_(intake) {}

    // Imports every batch's result files that belong to the class as it is now; names each new one on the
    // progress line when there is one.
    void import(Progress* progress) {
        std::vector<fs::path> dirs;
        for (const SlurmBatch& batch : read_batches(options_.out)) dirs.push_back(batch.results_dir());
        const ImportCount count = import_result_files(dirs, db_, intake_.found, options_.grader_version);
        for (const std::string& problem : count.problems) std::cerr << "gpulab-grade-class: WARNING: result file left out: " << problem << "\n";
        for (const LabResult& r : count.imported) {
            if (progress)
                progress->finished(r.student + " " + r.lab + ": " + r.status + " " + std::to_string(int(r.points)) + "/" +
                                       std::to_string(int(r.max_points)) + " (" + r.worker + ")",
                                   r.status != status::graded || r.points < r.max_points);
        }
        imported_ += int(count.imported.size());
    }
    int imported() const { return imported_; }

    // Writes the shards and the script of a new batch and submits it as one job array.
    Watched submit(const std::vector<WorkItem>& work) {
        std::vector<ShardItem> items;
        for (const WorkItem& w : work) {
            const LabFiles* lab = intake_.submissions.at(w.submission.student).lab(w.submission.lab);
            items.push_back({w, lab ? lab->files : std::map<std::string, std::string>{}});
        }
        SlurmBatch batch = write_batch(options_, intake_.seed, items, slurm_.array_tasks);
        const fs::path script = batch.dir / "job.sh";
        std::ofstream(script) << batch_script(options_, slurm_, batch);
        const std::vector<std::string> argv{"sbatch", "--parsable", "--array=0-" + std::to_string(batch.tasks - 1), script.string()};
        const CommandResult sbatch = run_command(argv);
        if (sbatch.status != 0)
            throw std::runtime_error("sbatch refused the job array (" + (sbatch.started ? "exit " + std::to_string(sbatch.status) : "not run") +
                                     "): " + sbatch.err + "The script is " + script.string());
        // --parsable: "<job id>" or "<job id>;<cluster>".
        std::string job = sbatch.out.substr(0, sbatch.out.find_first_of(";\n"));
        record_job_id(batch, job);
        std::cerr << "[gpulab-grade-class] submitted job " << job << ": " << batch.tasks << " array task(s) for " << work.size()
                  << " submission-lab(s); shards, logs and results in " << batch.dir.string() << "\n";
        return watch(batch);
    }

    // Polls squeue/sacct and imports until no task of `watched` is pending or running.
    void wait(std::vector<Watched>& watched, Progress& progress) {
        std::string last;
        for (;;) {
            import(&progress);
            int pending = 0, running = 0, done = 0, failed = 0;
            bool live = false;
            for (Watched& w : watched) {
                query(w);
                for (const auto& [k, t] : w.states) {
                    live = live || is_live(t.state);
                    pending += t.state == "PENDING";
                    running += is_live(t.state) && t.state != "PENDING";
                    done += t.state == "COMPLETED";
                    failed += !is_live(t.state) && t.state != "COMPLETED";
                    if (!is_live(t.state) && t.state != "COMPLETED" && w.reported.insert(k).second) progress.note(describe_failure(w, k));
                }
            }
            std::string jobs;
            for (const Watched& w : watched) jobs += (jobs.empty() ? "job " : ", ") + w.batch.job_id;
            const std::string line = jobs + ": array tasks " + std::to_string(pending) + " pending, " + std::to_string(running) +
                                     " running, " + std::to_string(done) + " done, " + std::to_string(failed) + " failed";
            if (line != last) progress.started(line);
            last = line;
            if (!live) break;
            std::this_thread::sleep_for(std::chrono::seconds(slurm_.poll_s));
        }
        import(&progress);  // what the last tasks wrote as they ended
    }

private:
    const BatchOptions& options_;
    const SlurmOptions& slurm_;
    ResultsDb& db_;
    ClassIntake& intake_;
    int imported_ = 0;
};

}  // namespace

int run_slurm(const BatchOptions& options, const SlurmOptions& slurm) {
    fs::create_directories(options.out);
    ResultsDb db(fs::path(options.out) / "db" / "results.sqlite");
    ClassIntake intake = take_class(options, db);
    ClusterRun run(options, slurm, db, intake);
    // What earlier runs' array tasks finished first, so that none of it is submitted again.
    run.import(nullptr);
    if (run.imported() > 0) std::cerr << "[gpulab-grade-class] imported " << run.imported() << " result(s) that earlier array tasks wrote\n";

    // An array still in the queue from an earlier run is waited for, not submitted twice.
    std::vector<Watched> watched;
    std::set<std::pair<std::string, std::string>> queued;
    for (const SlurmBatch& batch : read_batches(options.out)) {
        if (batch.job_id.empty()) continue;
        Watched w = watch(batch);
        query(w);
        bool live = false;
        for (const auto& [k, t] : w.states) live = live || is_live(t.state);
        if (!live) continue;
        std::cerr << "[gpulab-grade-class] job " << batch.job_id << " (" << batch.dir.filename().string()
                  << ") is still in the queue: waiting for it\n";
        for (const auto& shard : w.shards)
            for (const ShardItem& item : shard) queued.insert({item.work.submission.student, item.work.submission.lab});
        watched.push_back(std::move(w));
    }

    const std::vector<WorkItem> work = work_to_do(options, db, intake);
    Progress progress(int(work.size()), options.terminal);
    GpuPool no_gpus({}, 1);  // nothing is graded here: the array tasks grade
    GradingContext c{options, intake.submissions, intake.seed, &progress, &no_gpus};
    std::vector<WorkItem> to_submit = store_empty_labs(c, db, work);
    std::erase_if(to_submit, [&](const WorkItem& w) { return queued.count({w.submission.student, w.submission.lab}) > 0; });
    try {
        if (!to_submit.empty()) watched.push_back(run.submit(to_submit));
        if (!slurm.wait) {
            write_reports(options, db);
            if (!watched.empty())
                std::cerr << "[gpulab-grade-class] not waiting (--no-wait): run the same command again to import what the "
                             "array tasks finished and to write the reports\n";
            return 0;
        }
        for (int round = 0; !watched.empty(); ++round) {
            run.wait(watched, progress);
            for (const Watched& w : watched) print_summary(w);
            std::vector<WorkItem> lost;
            for (const Watched& w : watched)
                for (int k = 0; k < w.batch.tasks; ++k)
                    for (const ShardItem& item : w.shards[k])
                        if (!fs::exists(result_file_path(w.batch.results_dir(), item.work.submission.student, item.work.submission.lab)))
                            lost.push_back(item.work);
            watched.clear();
            if (!lost.empty() && slurm.resubmit_lost && round == 0) {
                std::cerr << "[gpulab-grade-class] --resubmit-lost: a new array for the " << lost.size()
                          << " submission-lab(s) the failed tasks lost\n";
                watched.push_back(run.submit(lost));
            } else if (!lost.empty()) {
                write_reports(options, db);
                std::cerr << "gpulab-grade-class: " << lost.size()
                          << " submission-lab(s) have no result because their array tasks ended without finishing (named "
                             "above). Run the same command again: it submits a new array for those only.\n";
                return 5;
            }
        }
    } catch (const std::exception& e) {
        write_reports(options, db);
        std::cerr << "gpulab-grade-class: stopped: " << e.what() << "\nEvery result imported before this is stored; run the "
                     "same command again to go on.\n";
        return 1;
    }
    write_reports(options, db);
    return 0;
}

}  // namespace gpulab::grade_class
