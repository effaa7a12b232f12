// The sandbox a student's build and grader run in: each test runs a real command under the argv that
// sandboxed_command builds, and checks what the command could and could not do. Tests that need bwrap skip,
// with sandbox_available()'s reason, where it cannot run.
#include "sandbox.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using gpulab::grade_class::Isolation;
using gpulab::grade_class::SandboxCheck;
using gpulab::grade_class::SandboxSpec;

namespace {

const SandboxCheck& host_check() {
    static const SandboxCheck check = gpulab::grade_class::sandbox_available();
    return check;
}

#define SKIP_WITHOUT_BWRAP()                                                                            \
    if (!host_check().available)                                                                        \
    GTEST_SKIP() << "bubblewrap cannot run here: " << host_check().problem << "\n" << host_check().error

struct Ran {
    int code = 0;  // exit status, or 128 + the signal that killed it
    std::string output;
    double seconds = 0;
};

std::string shell_quoted(const std::string& word) {
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// Runs argv with stdout and stderr captured; the wall clock is the caller's job, so coreutils' timeout does it.
Ran run(const std::vector<std::string>& argv, int wall_seconds = 10) {
    std::string line = "timeout -s KILL " + std::to_string(wall_seconds);
    for (const std::string& word : argv) line += " " + shell_quoted(word);
    line += " 2>&1 </dev/null";
    const auto start = std::chrono::steady_clock::now();
    FILE* pipe = ::popen(line.c_str(), "r");
    if (!pipe) throw std::runtime_error("popen failed");
    Ran ran;
    char buffer[4096];
    for (size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) ran.output.append(buffer, got);
    const int status = ::pclose(pipe);
    ran.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    ran.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return ran;
}

void write_file(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

// An instructor tree with a lab file, other students' submissions and a results database next to it.
class Sandbox : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/gpulab-sandbox-test-XXXXXX";
        ASSERT_NE(::mkdtemp(pattern), nullptr);
        root_ = pattern;
        ::chmod(root_.c_str(), 0755);  // the sandbox user (nobody, when the tests run as root) must reach it
        tree_ = root_ / "tree";
        write_file(tree_ / "labs" / "lab.json", "LAB-VISIBLE");
        write_file(tree_ / "submissions" / "alice" / "kernel.cu", "SECRET-ALICE");
        write_file(tree_ / "results.sqlite", "SECRET-DB");
        write_file(tree_ / "results.sqlite-wal", "SECRET-WAL");
        spec_.instructor_tree = tree_.string();
        spec_.scratch = (root_ / "scratch").string();
        spec_.hidden_paths = {(tree_ / "submissions").string(), (tree_ / "results.sqlite").string()};
        spec_.limits.cpu_seconds = 5;
        spec_.limits.memory_bytes = 1LL << 30;
        spec_.limits.max_processes = 64;
        spec_.limits.max_file_bytes = 16 << 20;
        gpulab::grade_class::prepare_scratch(spec_);
    }
    void TearDown() override {
        std::error_code ignored;
        fs::remove_all(root_, ignored);
    }

    Ran sandboxed(const std::vector<std::string>& argv, int wall_seconds = 10) {
        return run(gpulab::grade_class::sandboxed_command(spec_, argv), wall_seconds);
    }
    Ran sandboxed_shell(const std::string& script, int wall_seconds = 10) {
        return sandboxed({"bash", "-c", script}, wall_seconds);
    }

    fs::path root_, tree_;
    SandboxSpec spec_;
};

bool contains(const std::vector<std::string>& words, const std::string& word) {
    return std::find(words.begin(), words.end(), word) != words.end();
}

bool starts_with_any(const std::vector<std::string>& words, const std::string& prefix) {
    return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return w.rfind(prefix, 0) == 0; });
}

TEST_F(Sandbox, CommandIsBubblewrapWithEveryNamespaceAndPrlimitInside) {
    const std::vector<std::string> argv = gpulab::grade_class::sandboxed_command(spec_, {"make", "-j2"});
    const auto bwrap = std::find(argv.begin(), argv.end(), "bwrap");
    const auto prlimit = std::find(argv.begin(), argv.end(), "prlimit");
    ASSERT_NE(bwrap, argv.end());
    ASSERT_NE(prlimit, argv.end());
    EXPECT_LT(bwrap, prlimit) << "the limits are applied inside the sandbox";
    for (const char* option : {"--unshare-all", "--die-with-parent", "--new-session", "--clearenv"})
        EXPECT_TRUE(contains(argv, option)) << option;
    EXPECT_FALSE(contains(argv, "--share-net"));
    EXPECT_TRUE(contains(argv, "--cpu=5:6"));
    EXPECT_TRUE(contains(argv, "--as=" + std::to_string(1LL << 30))) << "a CPU job's memory is limited by RLIMIT_AS";
    EXPECT_TRUE(contains(argv, "--nproc=64"));
    EXPECT_EQ(std::vector<std::string>(argv.end() - 2, argv.end()), (std::vector<std::string>{"make", "-j2"}));
    EXPECT_EQ(contains(argv, "setpriv"), ::geteuid() == 0) << "root drops to an unprivileged user, nobody else needs to";
}

TEST_F(Sandbox, GpuJobGetsNoAddressSpaceLimitAndSaysHowMemoryIsLimited) {
    spec_.needs_gpu = true;
    std::vector<std::string> argv = gpulab::grade_class::sandboxed_command(spec_, {"grader"});
    EXPECT_FALSE(starts_with_any(argv, "--as=")) << "RLIMIT_AS breaks the CUDA runtime";
    for (const fs::directory_entry& entry : fs::directory_iterator("/dev"))
        if (entry.path().filename().string().rfind("nvidia", 0) == 0) EXPECT_TRUE(contains(argv, entry.path().string()));
    const std::vector<std::string> warnings = gpulab::grade_class::sandbox_warnings(spec_);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("not limited"), std::string::npos) << warnings[0];

    spec_.memory_cgroup = true;
    argv = gpulab::grade_class::sandboxed_command(spec_, {"grader"});
    EXPECT_EQ(argv.front(), "systemd-run");
    EXPECT_TRUE(contains(argv, "MemoryMax=" + std::to_string(1LL << 30)));
    EXPECT_TRUE(gpulab::grade_class::sandbox_warnings(spec_).empty());
}

TEST_F(Sandbox, RefusesToHideTheInstructorTreeOrToRunWithoutScratch) {
    spec_.hidden_paths.push_back(root_.string());
    EXPECT_THROW(gpulab::grade_class::sandboxed_command(spec_, {"true"}), std::invalid_argument);
    spec_.hidden_paths.pop_back();
    spec_.scratch = (root_ / "no-such-folder").string();
    EXPECT_THROW(gpulab::grade_class::sandboxed_command(spec_, {"true"}), std::invalid_argument);
    spec_.scratch = "relative/scratch";
    EXPECT_THROW(gpulab::grade_class::sandboxed_command(spec_, {"true"}), std::invalid_argument);
}

TEST_F(Sandbox, CannotReachTheNetwork) {
    SKIP_WITHOUT_BWRAP();
    const Ran connect = sandboxed({"python3", "-c",
                                   "import socket\n"
                                   "socket.create_connection(('1.1.1.1', 53), 2)\n"
                                   "print('CONNECTED')\n"});
    EXPECT_NE(connect.code, 0) << connect.output;
    EXPECT_EQ(connect.output.find("CONNECTED"), std::string::npos) << connect.output;

    // /proc/net/dev lists the interfaces of the reader's network namespace (/sys/class/net would show the host's).
    const Ran interfaces = sandboxed({"cat", "/proc/net/dev"});
    ASSERT_EQ(interfaces.code, 0) << interfaces.output;
    std::set<std::string> names;
    std::istringstream lines(interfaces.output);
    for (std::string line; std::getline(lines, line);)
        if (const size_t colon = line.find(':'); colon != std::string::npos) {
            std::string name = line.substr(0, colon);
            name.erase(0, name.find_first_not_of(' '));
            names.insert(name);
        }
    EXPECT_EQ(names, (std::set<std::string>{"lo"})) << interfaces.output;
}

TEST_F(Sandbox, WritesOnlyToScratchAndAPrivateTmp) {
    SKIP_WITHOUT_BWRAP();
    const char* home = std::getenv("HOME");
    const std::string marker = "gpulab-sandbox-marker-" + std::to_string(::getpid());
    std::vector<std::string> forbidden = {tree_ / "labs" / "written", fs::path(GPULAB_SOURCE_DIR) / "written",
                                          "/usr/written", "/etc/written", "/var/tmp/" + marker};
    if (home && home[0] == '/') forbidden.push_back(fs::path(home) / marker);
    std::string script;
    for (const std::string& path : forbidden) script += "if { echo x > '" + path + "'; } 2>/dev/null; then echo \"WROTE " + path + "\"; fi\n";
    script += "echo in-scratch > written && echo in-tmp > /tmp/" + marker + " && cat written /tmp/" + marker + "\n";
    const Ran ran = sandboxed_shell(script);
    EXPECT_EQ(ran.code, 0) << ran.output;
    EXPECT_EQ(ran.output.find("WROTE"), std::string::npos) << ran.output;
    EXPECT_EQ(ran.output, "in-scratch\nin-tmp\n");
    for (const std::string& path : forbidden) EXPECT_FALSE(fs::exists(path)) << path;
    std::ifstream written(fs::path(spec_.scratch) / "written");
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(written), {}), "in-scratch\n");

    EXPECT_FALSE(fs::exists("/tmp/" + marker)) << "the sandbox's /tmp is its own";
    const Ran again = sandboxed_shell("test -e /tmp/" + marker + " && echo STILL-THERE; true");
    EXPECT_EQ(again.output, "") << "a second sandbox starts with an empty /tmp";
}

// A class workspace keeps its build folder inside its tree (tree/build, laid out like a checkout's, for the
// compiler cache): bound writable over the read-only tree, it must not make the rest of the tree writable.
TEST_F(Sandbox, ScratchInsideTheTreeLeavesTheRestOfTheTreeReadOnly) {
    SKIP_WITHOUT_BWRAP();
    spec_.scratch = (tree_ / "build").string();
    gpulab::grade_class::prepare_scratch(spec_);
    const std::string tree = tree_.string();
    const Ran ran = sandboxed_shell("if { echo x > " + tree + "/labs/written; } 2>/dev/null; then echo WROTE-TREE; fi\n"
                                    "if { echo x > " + tree + "/written; } 2>/dev/null; then echo WROTE-TOP; fi\n"
                                    "echo in-build > written && cat written " + tree + "/labs/lab.json");
    EXPECT_EQ(ran.code, 0) << ran.output;
    EXPECT_EQ(ran.output, "in-build\nLAB-VISIBLE") << "only the build folder inside the tree is writable";
    EXPECT_FALSE(fs::exists(tree_ / "labs" / "written"));
    EXPECT_FALSE(fs::exists(tree_ / "written"));
    EXPECT_TRUE(fs::exists(tree_ / "build" / "written"));
    EXPECT_NE(sandboxed({"cat", tree + "/submissions/alice/kernel.cu"}).code, 0) << "hidden paths stay hidden";
}

TEST_F(Sandbox, HiddenPathsAreNotReadable) {
    SKIP_WITHOUT_BWRAP();
    const char* home = std::getenv("HOME");
    const std::string tree = tree_.string();
    EXPECT_EQ(sandboxed({"cat", tree + "/labs/lab.json"}).output, "LAB-VISIBLE") << "the rest of the tree stays readable";
    const Ran secrets = sandboxed_shell("cat " + tree + "/submissions/alice/kernel.cu " + tree + "/results.sqlite " + tree +
                                        "/results.sqlite-wal; true");
    for (const char* secret : {"SECRET-ALICE", "SECRET-DB", "SECRET-WAL"})
        EXPECT_EQ(secrets.output.find(secret), std::string::npos) << secret << " leaked:\n" << secrets.output;
    const Ran listing = sandboxed({"ls", "-A", tree + "/submissions"});
    EXPECT_EQ(listing.output, "") << "other students' submissions are not even listed";
    if (home && home[0] == '/' && fs::is_directory(home) && !fs::is_empty(home)) {
        const Ran home_listing = sandboxed({"ls", "-A", home});
        EXPECT_EQ(home_listing.output, "") << "the instructor's home " << home << " is hidden";
    }
}

TEST_F(Sandbox, CpuLimitKillsASpinningProcess) {
    SKIP_WITHOUT_BWRAP();
    spec_.limits.cpu_seconds = 1;
    const Ran ran = sandboxed_shell("while :; do :; done", 20);
    EXPECT_TRUE(ran.code == 128 + SIGXCPU || ran.code == 128 + SIGKILL) << "exit " << ran.code << "\n" << ran.output;
    EXPECT_LT(ran.seconds, 6) << "killed by the CPU limit, not by the wall clock";
}

TEST_F(Sandbox, ProcessLimitStopsAForkBomb) {
    SKIP_WITHOUT_BWRAP();
    spec_.limits.max_processes = 16;
    // Bounded first (it gives up after 300 children even without a limit), so a broken limit costs little.
    const Ran bounded = sandboxed({"python3", "-c",
                                   "import os, time\n"
                                   "children = 0\n"
                                   "try:\n"
                                   "    while children < 300:\n"
                                   "        if os.fork() == 0:\n"
                                   "            time.sleep(2); os._exit(0)\n"
                                   "        children += 1\n"
                                   "except OSError as refused:\n"
                                   "    print('refused after', children, refused.strerror)\n"});
    ASSERT_NE(bounded.output.find("refused after"), std::string::npos) << bounded.output;
    ASSERT_LE(std::stoi(bounded.output.substr(bounded.output.find("after") + 6)), 16) << bounded.output;

    // The real thing, run for two seconds: it never has more processes than the limit, and nothing survives it.
    // (The sleep keeps the first shell waiting: when it exits, bwrap ends the whole PID namespace, bomb and all.)
    const std::string marker = "gpulab-fork-bomb-" + std::to_string(::getpid());
    auto count_bomb_processes = [&] {
        int count = 0;
        for (const fs::directory_entry& entry : fs::directory_iterator("/proc")) {
            std::ifstream cmdline(entry.path() / "cmdline");
            std::string argv0;
            if (std::getline(cmdline, argv0, '\0') && argv0 == marker) ++count;
        }
        return count;
    };
    auto bomb = std::async(std::launch::async, [&] {
        return sandboxed_shell("exec -a " + marker + " bash -c 'sleep 5 & :(){ :|:& };:; wait'", 2);
    });
    int most = 0;
    for (int sample = 0; sample < 15; ++sample) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        most = std::max(most, count_bomb_processes());

    }
    const Ran ran = bomb.get();
    EXPECT_GT(most, 1) << "the bomb ran:\n" << ran.output;
    EXPECT_LE(most, 16) << ran.output;
    EXPECT_EQ(ran.code, 128 + SIGKILL) << "the wall clock ended it";
    EXPECT_LT(ran.seconds, 5);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(count_bomb_processes(), 0) << "killing the sandbox ends every process in it";
}

TEST_F(Sandbox, MemoryLimitStopsALargeAllocationInACpuJob) {
    SKIP_WITHOUT_BWRAP();
    spec_.limits.memory_bytes = 256LL << 20;
    const Ran small = sandboxed({"python3", "-c", "b = bytearray(64 << 20); print('ok')"});
    EXPECT_EQ(small.output, "ok\n") << "the limit leaves room for ordinary work";
    const Ran large = sandboxed({"python3", "-c", "b = bytearray(1 << 30); print('ALLOCATED')"});
    EXPECT_NE(large.code, 0);
    EXPECT_NE(large.output.find("MemoryError"), std::string::npos) << large.output;
}

TEST_F(Sandbox, EnvironmentIsClean) {
    SKIP_WITHOUT_BWRAP();
    ::setenv("GPULAB_INSTRUCTOR_TOKEN", "hunter2", 1);
    spec_.env["GPULAB_SEED"] = "1234";
    const Ran ran = sandboxed({"env"});
    ::unsetenv("GPULAB_INSTRUCTOR_TOKEN");
    ASSERT_EQ(ran.code, 0) << ran.output;
    std::set<std::string> lines;
    std::istringstream text(ran.output);
    for (std::string line; std::getline(text, line);) lines.insert(line);
    // bwrap --chdir sets PWD.
    EXPECT_EQ(lines, (std::set<std::string>{"PATH=" + spec_.path, "HOME=" + spec_.scratch, "LANG=C", "CCACHE_DISABLE=1",
                                            "TMPDIR=/tmp", "PWD=" + spec_.scratch, "GPULAB_SEED=1234"}));
}

TEST_F(Sandbox, UnsandboxedModeAppliesLimitsAndWarnsLoudly) {
    spec_.isolation = Isolation::Unsandboxed;
    spec_.limits.cpu_seconds = 1;
    spec_.limits.max_processes = 16;
    const std::vector<std::string> argv = gpulab::grade_class::sandboxed_command(spec_, {"bash", "-c", "ulimit -t; ulimit -u; ulimit -v; env"});
    EXPECT_FALSE(contains(argv, "bwrap"));
    const std::vector<std::string> warnings = gpulab::grade_class::sandbox_warnings(spec_);
    ASSERT_FALSE(warnings.empty());
    EXPECT_NE(warnings[0].find("WITHOUT A SANDBOX"), std::string::npos) << warnings[0];

    ::setenv("GPULAB_INSTRUCTOR_TOKEN", "hunter2", 1);
    const Ran limits = run(argv);
    ::unsetenv("GPULAB_INSTRUCTOR_TOKEN");
    EXPECT_EQ(limits.output.rfind("1\n16\n" + std::to_string((1LL << 30) / 1024) + "\n", 0), 0u) << limits.output;
    EXPECT_EQ(limits.output.find("hunter2"), std::string::npos) << "the environment is clean here too";
    EXPECT_NE(limits.output.find("HOME=" + spec_.scratch), std::string::npos) << limits.output;

    const Ran spin = run(gpulab::grade_class::sandboxed_command(spec_, {"bash", "-c", "while :; do :; done"}), 20);
    EXPECT_TRUE(spin.code == 128 + SIGXCPU || spin.code == 128 + SIGKILL) << "exit " << spin.code << "\n" << spin.output;
    EXPECT_LT(spin.seconds, 6);
}

TEST(SandboxAvailable, SaysHowToInstallBubblewrapWhenItIsMissing) {
    const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", "/nonexistent-gpulab-path", 1);
    const SandboxCheck check = gpulab::grade_class::sandbox_available();
    ::setenv("PATH", saved.c_str(), 1);
    EXPECT_FALSE(check.available);
    EXPECT_NE(check.problem.find("sudo apt-get install bubblewrap"), std::string::npos) << check.problem;
    EXPECT_NE(check.error.find("/nonexistent-gpulab-path"), std::string::npos) << check.error;
}

TEST(SandboxAvailable, ExplainsEveryFailure) {
    const SandboxCheck& check = host_check();
    EXPECT_EQ(check.available, check.problem.empty()) << check.problem;
    EXPECT_EQ(check.memory_cgroup, check.memory_cgroup_problem.empty()) << check.memory_cgroup_problem;
    std::cout << "bwrap: " << (check.available ? "available" : check.problem) << "\n"
              << "memory cgroup for GPU jobs: " << (check.memory_cgroup ? "available" : check.memory_cgroup_problem) << "\n";
}

}  // namespace
