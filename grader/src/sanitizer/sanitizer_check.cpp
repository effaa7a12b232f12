// The sanitizer pass (sanitizer_check.h): the parent side runs this grader binary's workload under each
// compute-sanitizer tool and reads what the tools say; the child side is the workload, registered as a test
// only in that child.
#include "gpulab/sanitizer_check.h"

#include "gpulab/child_spawn.h"
#include "gpulab/device_facts.h"
#include "gpulab/grader_test.h"
#include "gpulab/lab_config.h"
#include "gpulab/solution.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

extern char** environ;

namespace gpulab {
namespace {

namespace fs = std::filesystem;

// What tells a grader process it is the sanitizer's child, and the markers it prints on its output.
const char* const kWorkloadFlag = "GPULAB_SANITIZER_WORKLOAD";
const char* const kStarted = "[gpulab-sanitizer] workload started";
const char* const kFinished = "[gpulab-sanitizer] workload finished";
const char* const kWrongOutput = "[gpulab-sanitizer] wrong output: ";
// The status compute-sanitizer exits with when its tool reported an error.
constexpr int kToolFoundErrors = 86;
const char* const kTools[] = {"racecheck", "synccheck", "memcheck", "initcheck"};

// ---- The child: the workload as its only test --------------------------------------------------------

std::vector<std::string>& wrong_outputs() {
    static std::vector<std::string> found;
    return found;
}

class WorkloadTest : public testing::Test {
public:
    explicit WorkloadTest(std::function<void()> workload) : workload_(std::move(workload)) {}
    void TestBody() override {
        std::cout << kStarted << std::endl;
        workload_();
        GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
        std::cout << kFinished << std::endl;
        for (const std::string& wrong : wrong_outputs()) ADD_FAILURE() << wrong;
    }

private:
    std::function<void()> workload_;
};

// ---- Running one tool ----------------------------------------------------------------------------------

struct SanitizerRun {
    std::string tool;
    std::string log;
    pid_t pid = -1;
    bool finished = false, timed_out = false;
    int status = 0;
    std::string output;
    bool exited() const { return finished && WIFEXITED(status); }
    int code() const { return WEXITSTATUS(status); }
};

// The environment of the child: this process's, with the workload flag, the student's library and no
// reference library (the tools must see the student's kernels only).
std::vector<std::string> child_env(const std::string& student_library) {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('='));
        if (name == kWorkloadFlag || name == "GPULAB_SOLUTION_LIB" || name == "GPULAB_REFERENCE_LIB") continue;
        env.push_back(entry);
    }
    env.push_back(std::string(kWorkloadFlag) + "=1");
    env.push_back("GPULAB_SOLUTION_LIB=" + student_library);
    return env;
}

unsigned tool_time_limit_s() {
    if (const char* env = std::getenv("GPULAB_SANITIZER_TIMEOUT_S"); env && *env) return unsigned(std::stoul(env));
    return 90;
}

// Runs the four tools at once, each on this binary's workload, and waits for all of them.
std::vector<SanitizerRun> run_tools(const std::string& sanitizer, const std::string& student_library, const fs::path& dir) {
    const std::string self = own_executable_path();
    if (self.empty()) throw std::runtime_error("cannot tell where this grader binary is (/proc/self/exe)");
    const std::vector<std::string> env = child_env(student_library);
    std::vector<SanitizerRun> runs;
    for (const char* tool : kTools) {
        SanitizerRun run;
        run.tool = tool;
        run.log = (dir / (std::string(tool) + ".log")).string();
        run.pid = spawn_child({sanitizer, "--tool", tool, "--error-exitcode", std::to_string(kToolFoundErrors),
                               "--show-backtrace", "no", "--print-limit", "50", "--report-api-errors", "no", self,
                               "--gtest_filter=SanitizerWorkload.Run", "--gtest_color=no", "--gtest_brief=1"},
                              env, run.log, "compute-sanitizer");
        runs.push_back(run);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(tool_time_limit_s());
    for (;;) {
        bool waiting = false;
        for (SanitizerRun& run : runs) {
            if (run.finished) continue;
            if (::waitpid(run.pid, &run.status, WNOHANG) == run.pid) {
                run.finished = true;
                continue;
            }
            if (std::chrono::steady_clock::now() > deadline) {
                ::kill(-run.pid, SIGKILL);
                ::kill(run.pid, SIGKILL);
                ::waitpid(run.pid, &run.status, 0);
                run.finished = run.timed_out = true;
                continue;
            }
            waiting = true;
        }
        if (!waiting) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (SanitizerRun& run : runs) run.output = read_text_file(run.log);
    return runs;
}

// The student's copy of a source file a tool named: the path it printed where that can be read, else the file of
// that name in the solution's sources folder, which <build>/gpulab-labs/<lab>.json gives for the library
// (<build>/solutions/<lab>/.../libsolution.so); "" when neither is there.
std::string readable_source(const std::string& printed, const std::string& library) {
    std::error_code error;
    if (printed.empty() || fs::is_regular_file(printed, error)) return printed;
    try {
        const fs::path lib = fs::weakly_canonical(library);
        for (fs::path dir = lib.parent_path(); dir.has_relative_path(); dir = dir.parent_path()) {
            if (dir.filename() != "solutions") continue;
            const std::string lab = lab_config().at("lab");
            const Json manifest = load_json_file((dir.parent_path() / "gpulab-labs" / (lab + ".json")).string());
            for (const auto& [name, solution] : manifest.at("solutions").items()) {
                if (!solution.contains("gpu") || fs::weakly_canonical(solution["gpu"].value("library", "")) != lib) continue;
                const fs::path source = fs::path(solution.value("sources_dir", "")) / fs::path(printed).filename();
                if (fs::is_regular_file(source, error)) return source.string();
            }
            break;
        }
    } catch (const std::exception&) {
        // No manifest to read (a grader started by hand): the line goes without its text.
    }
    return "";
}

}  // namespace

// ---- The child side -------------------------------------------------------------------------------------

bool& workload_added() {
    static bool added = false;
    return added;
}

bool add_sanitizer_workload(std::function<void()> workload) {
    workload_added() = true;
    const char* flag = std::getenv(kWorkloadFlag);
    if (!flag || std::string(flag) != "1") return true;
    testing::RegisterTest("SanitizerWorkload", "Run", nullptr, nullptr, __FILE__, __LINE__,
                          [workload]() -> testing::Test* { return new WorkloadTest(workload); });
    return true;
}

void workload_output_wrong(const std::string& launch, const std::string& what) {
    const std::string line = launch + ": " + what;
    std::cout << kWrongOutput << line << std::endl;
    wrong_outputs().push_back(line);
}

void check_workload_output(const std::string& launch, const Comparison& comparison) {
    if (comparison.ok()) return;
    workload_output_wrong(launch, std::to_string(comparison.wrong) + " of " + std::to_string(comparison.shape.cells()) +
                                      " cells differ from the oracle (" + comparison.figure() + ")");
}

// ---- The test -------------------------------------------------------------------------------------------

namespace {
class SanitizerTest : public testing::Test {
public:
    void TestBody() override { check_kernels_with_sanitizer(); }
};
}  // namespace

void register_sanitizer_test() {
    const char* flag = std::getenv(kWorkloadFlag);
    if ((flag && std::string(flag) == "1") || !lab_lists_test("Sanitizer.NoErrors")) return;  // the child runs the workload alone
    testing::RegisterTest("Sanitizer", "NoErrors", nullptr, nullptr, __FILE__, __LINE__,
                          []() -> testing::Test* { return new SanitizerTest; });
}

namespace {

// What the tools' runs found: the errors they reported, with each tool's count; runs that went wrong otherwise (a
// time limit, a crash, a wrong output under the tool); and runs where the tool itself could not start.
struct SanitizerOutcome {
    std::vector<SanitizerFinding> findings;
    std::vector<std::string> problems, could_not_run;
    std::map<std::string, std::size_t> errors_by_tool;
};

void read_run(const SanitizerRun& run, const std::string& library, SanitizerOutcome& out) {
    const std::vector<SanitizerFinding> found = parse_sanitizer_output(run.tool, run.output);
    const bool started_workload = run.output.find(kStarted) != std::string::npos;
    const bool finished_workload = run.output.find(kFinished) != std::string::npos;
    // A clean exit is the tool's word that it found no error; racecheck's warnings count all the same (it
    // reports nothing for a benign race, such as threads storing the same value: what it reports is a race).
    const bool clean_exit = run.exited() && run.code() == 0;
    if ((!found.empty() && (!clean_exit || run.tool == "racecheck")) || (run.exited() && run.code() == kToolFoundErrors)) {
        out.errors_by_tool[run.tool] = found.size();
        for (SanitizerFinding f : found) {
            f.source_path = readable_source(f.source_path, library);
            out.findings.push_back(f);
        }
        if (found.empty())  // the tool said it found errors in words this parser does not know: show them
            out.problems.push_back(run.tool + " reported errors:\n" + run.output.substr(0, 3000));
        return;
    }
    if (run.timed_out) {
        out.problems.push_back("under " + run.tool + ", the kernels did not finish within " +
                               std::to_string(tool_time_limit_s()) +
                               " s (they run once each, on a few thousand cells): a loop that runs far too long?");
        return;
    }
    if (clean_exit) return;
    if (!started_workload) {  // the tool itself could not start (no driver support, a device it cannot use)
        std::string tail = run.output.substr(run.output.size() > 600 ? run.output.size() - 600 : 0);
        std::replace(tail.begin(), tail.end(), '\n', ' ');
        out.could_not_run.push_back(run.tool + ": " + tail);
        return;
    }
    // The workload ran and ended badly with a clean report: a wrong output under the tool, or a crash.
    std::istringstream lines(run.output);
    std::string line, wrong;
    while (std::getline(lines, line))
        if (line.rfind(kWrongOutput, 0) == 0) wrong += "\n    " + line.substr(std::strlen(kWrongOutput));
    if (!wrong.empty())
        out.problems.push_back("under " + run.tool + " (which reported nothing), these outputs were wrong, although "
                               "they were right in the correctness tests:" + wrong +
                               "\n  A kernel whose result depends on how its threads are scheduled (a race on "
                               "global memory, or a missing barrier the tool cannot see) does this.");
    else
        out.problems.push_back("under " + run.tool + ", the kernels' run ended early (" +
                               (run.exited() ? "exit status " + std::to_string(run.code())
                                             : std::string("signal ") + std::to_string(WTERMSIG(run.status))) +
                               (finished_workload ? "" : ", before every kernel ran") + "):\n" +
                               run.output.substr(run.output.size() > 1500 ? run.output.size() - 1500 : 0));
}

// The folder for the tools' output: under $GPULAB_SANITIZER_LOG_DIR, kept there for a person to read, or a temporary
// one under $TMPDIR, removed once read. Empty (the test failed as a grader error) where none can be made.
std::string sanitizer_output_folder(bool& keep) {
    const char* kept = std::getenv("GPULAB_SANITIZER_LOG_DIR");
    const char* tmp = std::getenv("TMPDIR");
    keep = kept && *kept;
    std::string pattern = (keep ? std::string(kept) : tmp && *tmp ? std::string(tmp) : std::string("/tmp")) +
                          "/gpulab-sanitizer-XXXXXX";
    if (keep) fs::create_directories(kept);
    const char* made = ::mkdtemp(pattern.data());
    if (!made) {
        fail_as_grader_error("cannot make a folder for compute-sanitizer's output (" + pattern + "): " +
                             std::strerror(errno) + "; set TMPDIR to a folder the grader may write");
        return {};
    }
    return made;
}

}  // namespace

void check_kernels_with_sanitizer() {
    if (!workload_added()) {
        fail_as_grader_error("lab.json lists Sanitizer.NoErrors, and the lab's grader adds no workload for it "
                             "(add_sanitizer_workload, in its sanitizer_workload.cpp)");
        return;
    }
    const DeviceFacts& facts = device_facts();
    if (!facts.available) GTEST_SKIP() << "needs a CUDA GPU: " << facts.unavailable_reason;
    if (facts.emulated)
        GTEST_SKIP() << "compute-sanitizer checks kernels on a GPU; in CPU execution mode a missing barrier or an "
                        "out-of-bounds access fails the correctness tests instead";
    std::string looked;
    const std::string sanitizer = find_compute_sanitizer(&looked);
    if (sanitizer.empty())
        GTEST_SKIP() << "compute-sanitizer was not found (looked in " << looked
                     << "): it comes with the CUDA toolkit (Debian/Ubuntu package cuda-sanitizer-<version>); set "
                        "GPULAB_COMPUTE_SANITIZER to its path";
    const std::string library = solution_library_path(Role::student);
    if (library.empty()) {
        fail_as_grader_error("the student's library was not handed over: run the grader through gpulab-grade");
        return;
    }
    bool keep = false;
    const std::string folder = sanitizer_output_folder(keep);
    if (folder.empty()) return;
    const fs::path dir = folder;
    const auto started = std::chrono::steady_clock::now();
    const std::vector<SanitizerRun> runs = run_tools(sanitizer, library, dir);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    SanitizerOutcome out;
    for (const SanitizerRun& run : runs) read_run(run, library, out);
    std::error_code ignored;
    if (!keep) fs::remove_all(dir, ignored);

    std::ostringstream figure;
    for (const char* tool : kTools)
        figure << (figure.tellp() ? ", " : "") << tool << " "
               << (out.errors_by_tool.count(tool) ? std::to_string(out.errors_by_tool.at(tool)) : std::string("0"));
    testing::Test::RecordProperty("sanitizer_seconds", std::to_string(seconds));
    const bool clean = out.findings.empty() && out.problems.empty();
    if (clean && !out.could_not_run.empty()) {
        std::string reasons;
        for (const std::string& r : out.could_not_run) reasons += "; " + r;
        GTEST_SKIP() << "compute-sanitizer could not run here (" << sanitizer << ")" << reasons.substr(0, 800);
    }
    record_figure(clean ? "no errors (" + figure.str() + ")" : "errors: " + figure.str(),
                  "no errors from racecheck, synccheck, memcheck, initcheck");
    GPULAB_EXPECT(out.findings.empty()) << "compute-sanitizer found problems in your kernels, each launched once at a "
                                           "small size:" << describe_findings(out.findings);
    for (const std::string& problem : out.problems) ADD_FAILURE() << problem;
}

}  // namespace gpulab
