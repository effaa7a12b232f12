#include "slurm_commands.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

extern char** environ;

namespace gpulab::grade_class {

namespace {

std::vector<std::string> split(const std::string& line, char separator) {
    std::vector<std::string> fields;
    std::stringstream in(line);
    for (std::string field; std::getline(in, field, separator);) fields.push_back(field);
    return fields;
}

std::string read_all(std::FILE* file) {
    std::string text;
    std::rewind(file);
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) text.append(buffer, n);
    std::fclose(file);
    return text;
}

// "12_3" -> 3; anything else (the array's pending remainder "12_[4-7]", a step "12_3.batch") -> -1.
int array_index(const std::string& job) {
    const std::size_t underscore = job.find('_');
    if (underscore == std::string::npos) return -1;
    const std::string index = job.substr(underscore + 1);
    if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(index);
}

// sacct writes "CANCELLED by 1000" for a task someone cancelled: the state is the first word.
std::string first_word(const std::string& text) { return text.substr(0, text.find(' ')); }

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv) {
    CommandResult result;
    // Output through unnamed temporary files: no pipe to drain while waiting, whatever the command writes.
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    if (!out || !err) {
        if (out) std::fclose(out);
        if (err) std::fclose(err);
        result.err = "no temporary file for the output of " + argv.front();
        return result;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, ::fileno(out), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, ::fileno(err), STDERR_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", 0, 0);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        std::fclose(out);
        std::fclose(err);
        result.err = argv.front() + ": not found on the PATH";
        return result;
    }
    result.started = true;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = read_all(out);
    result.err = read_all(err);
    return result;
}

bool is_live(const std::string& state) {
    static const std::set<std::string> live = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED",
                                               "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING", "SUSPENDED", "STOPPED",
                                               "SIGNALING", "STAGE_OUT", "RESV_DEL_HOLD"};
    return live.count(state) > 0;
}

bool is_failure(const std::string& state) {
    static const std::set<std::string> failed = {"FAILED",  "TIMEOUT",   "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY",
                                                 "BOOT_FAIL", "DEADLINE", "PREEMPTED", "SPECIAL_EXIT", "REVOKED"};
    return failed.count(state) > 0;
}

std::vector<std::string> squeue_command(const std::string& job_id) {
    return {"squeue", "-h", "-r", "-t", "all", "-j", job_id, "-O",
            "ArrayTaskID:|,JobID:|,State:|,Reason:|,exit_code:|,NodeList:|,TimeUsed:|"};
}

std::map<int, TaskState> parse_squeue(const std::string& text) {
    std::map<int, TaskState> tasks;
    std::stringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const std::vector<std::string> f = split(line, '|');
        if (f.size() < 7 || f[0].empty() || f[0].find_first_not_of("0123456789") != std::string::npos) continue;
        TaskState t;
        t.task = std::stoi(f[0]);
        t.job_id = f[1];
        t.state = f[2];
        t.reason = f[3];
        const int wait_status = std::atoi(f[4].c_str());
        t.exit_code = std::to_string((wait_status >> 8) & 0xff) + ":" + std::to_string(wait_status & 0x7f);
        t.node = f[5];
        t.elapsed = f[6];
        tasks[t.task] = t;
    }
    return tasks;
}

std::vector<std::string> sacct_command(const std::string& job_id) {
    return {"sacct", "-j", job_id, "-X", "-n", "-P", "-o", "JobID,JobIDRaw,State,ExitCode,Reason,NodeList,Elapsed"};
}

std::map<int, TaskState> parse_sacct(const std::string& text) {
    std::map<int, TaskState> tasks;
    std::stringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const std::vector<std::string> f = split(line, '|');
        if (f.size() < 7 || array_index(f[0]) < 0) continue;
        TaskState t{array_index(f[0]), f[1], first_word(f[2]), f[3], f[4], f[5], f[6]};
        tasks[t.task] = t;  // a requeued task's later line wins
    }
    return tasks;
}

std::vector<std::string> sacct_completion_command() {
    return {"sacct", "-c", "-n", "-P", "-o", "JobID,State,ExitCode,NodeList,Elapsed"};
}

std::map<int, TaskState> parse_sacct_completion(const std::string& text, const std::map<std::string, int>& task_of_job) {
    std::map<int, TaskState> tasks;
    std::stringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const std::vector<std::string> f = split(line, '|');
        if (f.size() < 5) continue;
        const auto known = task_of_job.find(f[0]);
        if (known == task_of_job.end()) continue;
        tasks[known->second] = {known->second, f[0], first_word(f[1]), f[2], "", f[3], f[4]};
    }
    return tasks;
}

}  // namespace gpulab::grade_class
