// The GPU's own counters for a lab's timed launches (gpu_profile.h): the parent starts a GPU grader under ncu with
// only the profile workload to run and reads ncu's CSV; the child side is that workload, registered as a test only
// in the child.
//
// The tolerance of check_gpu_counters_agree, and why. Both figures are bytes read by the threads, over the element
// size, per output element:
//  - CPU execution mode counts the bytes each access reads (so how a host compiler merges a pixel's three uchar loads
//    changes nothing), for a sample of the timed launch's blocks (corners, edges, random interior blocks). The GPU
//    gives the bytes its threads' global loads asked for, whole grid (smsp__sass_data_bytes_mem_global_op_ld.sum:
//    a float load is 4 per thread, a float4 load 16; not the sectors fetched, which count coalescing instead). On
//    lab 02 at 8192^2 (H200, ncu 2025.3.1): the reference's tiled kernel 5.2526 B per interior cell = 1.313 floats
//    on the GPU, 1.312 in CPU execution mode; the naive kernel 20.0098 B = 5.002.
//  - What still differs honestly: the sample over-represents edge blocks (a tile at the border of 8192^2 has a
//    little more or less halo than an interior one; with 32 of 262,144 blocks sampled, most on edges), a few % for
//    the stencils; a GPU path that reads less (a value kept in a register rather than read again) is no cheat.
//  - What it must catch is a kernel doing other work on the GPU: the tiled stencil that reads its neighbours from
//    global memory there reads 5 per cell against the tile's 1.31 (3.8x); lab 07's matmul without its tile, 16x.
// Hence gpu <= cpu * 1.25 + 0.25 elements per output, one-sided: wide against the honest differences, far below any
// cheat.
#include "gpulab/gpu_profile.h"

#include "gpulab/child_spawn.h"
#include "gpulab/device_facts.h"
#include "gpulab/device_resources.h"
#include "gpulab/expert.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/lab_config.h"
#include "gpulab/launch_geometry.h"
#include "gpulab/program_on_path.h"
#include "gpulab/solution.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>

extern char** environ;

namespace gpulab {

// The NVTX range around each launch (gpu_profile_range.cu; CPU execution mode's harness has a stand-in that throws:
// its child is always a GPU grader).
void push_gpu_profile_range(std::size_t index);
void pop_gpu_profile_range();
std::string global_load_metric();

namespace {

namespace fs = std::filesystem;

const char* const kWorkloadFlag = "GPULAB_PROFILE_WORKLOAD";
const char* const kLaunchLine = "[gpulab-profile] launch ";       // "<i>\t<role>\t<suite>\t<instance>\t<call>"
const char* const kLaunchFailed = "[gpulab-profile] failed ";     // "<i>\t<what>"
const char* const kFinished = "[gpulab-profile] workload finished";
const char* const kExpertNotProfiled = "[gpulab-profile] the expert was not profiled: ";  // "<why>"
const char* const kExpertLibrary = "GPULAB_EXPERT_LIB";  // the expert's GPU library, for the child
// Set for the child where the reference's and the expert's rows come from the comparison cache (below): it runs the
// student's launches only, and says so.
const char* const kOnlyYours = "GPULAB_PROFILE_ONLY_YOURS";
const char* const kComparisonCached = "[gpulab-profile] the reference and the expert: from the comparison cache";
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string tail_of(const std::string& text, std::size_t n) {
    std::string t = text.substr(text.size() > n ? text.size() - n : 0);
    for (char& c : t)
        if (c == '\n') c = ' ';
    return t;
}

// ncu's name of the device its rows ran on ("" where none says).
std::string device_of(const std::vector<NcuRow>& rows) {
    std::string device;
    for (const NcuRow& row : rows)
        for (const char* column : {ncu_metric::kDeviceName, "Device Name"})
            if (auto d = row.text.find(column); d != row.text.end() && !d->second.empty()) device = d->second;
    return device;
}

// A kept run's text: ncu's output, kChildOutputMark (below), the child's output. False where the mark is missing.
bool split_kept_run(const std::string& stored, std::string& ncu_out, std::string& child_out);

// ---- The child -------------------------------------------------------------------------------------------

// Fills `bytes` of device memory with the word 0x3F000000 (the float 0.5): four bytes from the host, then doubling
// device-to-device copies.
void fill_half(void* dst, std::size_t bytes) {
    if (bytes == 0) return;
    const std::uint32_t word = 0x3F000000u;
    unsigned char w[4];
    std::memcpy(w, &word, 4);
    auto* d = static_cast<unsigned char*>(dst);
    GPULAB_CUDA_CHECK(cudaMemcpy(d, w, std::min<std::size_t>(4, bytes), cudaMemcpyHostToDevice));
    for (std::size_t done = 4; done < bytes; done *= 2)
        GPULAB_CUDA_CHECK(cudaMemcpy(d + done, d, std::min(done, bytes - done), cudaMemcpyDeviceToDevice));
}

class ProfileWorkload : public testing::Test {
public:
    void TestBody() override {
        std::vector<GeometryCheck> launches;
        for (const GeometryCheck& c : timed_launches(""))
            if (profile_leaves_out(c.suite).empty()) launches.push_back(c);
        std::size_t next = run_all(launches, "yours", 0);
        if (const char* only = std::getenv(kOnlyYours); only && *only == '1') {
            std::cout << kComparisonCached << "\n" << kFinished << std::endl;
            return;
        }
        // The reference's kernels through the same launch code, for the report's comparison (gpu_profile_report.h).
        if (!solution_library_path(Role::reference).empty()) {
            bool served = false;
            try {
                serve_student_role_from(Role::reference, lab_config().at("lab"));
                served = true;
            } catch (const std::exception& e) {
                std::cout << "[gpulab-profile] the reference was not profiled: " << e.what() << std::endl;
            }
            if (served) next = run_all(first_of_each_suite(launches), "reference", next);
        }
        run_expert(next);
        std::cout << kFinished << std::endl;
    }

private:
    // The reference at one size per suite (its first timed launch, the size the expert runs at too), not at every
    // timed size: each replay under ncu costs about as much as the student's (six passes, one instrumented), and the
    // figures that explain speed (occupancy, sectors per request, conflicts) do not change with the size. On an H200
    // lab 04's six timed launches took 6.6 s with the reference at all six (26 kernels with the markers); a speed
    // test at another size compares with the suite's reference row (figures_of's fallback).
    static std::vector<GeometryCheck> first_of_each_suite(const std::vector<GeometryCheck>& launches) {
        std::vector<GeometryCheck> out;
        for (const GeometryCheck& c : launches)
            if (std::none_of(out.begin(), out.end(), [&](const GeometryCheck& o) { return o.suite == c.suite; }))
                out.push_back(c);
        return out;
    }

    // The expert's launches, last: where the parent handed over no expert library it says why itself.
    static void run_expert(std::size_t first) {
        const char* library = std::getenv(kExpertLibrary);
        if (!library || !*library) return;
        std::vector<GeometryCheck> runs;
        try {
            const std::string name = lab_config().at("lab").get<std::string>() + "/expert";
            add_companion_reference(name, library);
            runs = expert_runs(expert_launches(), timed_launches(""), load_companion_api(name));
        } catch (const std::exception& e) {
            std::string what = e.what();
            for (char& ch : what)
                if (ch == '\n') ch = ' ';
            std::cout << kExpertNotProfiled << "its library did not load (" << what << ")" << std::endl;
            return;
        }
        if (runs.empty())
            std::cout << kExpertNotProfiled
                      << "this lab registers no expert launch for the profile (gpu_profile.h, add_expert_launches)"
                      << std::endl;
        run_all(runs, "expert", first);
    }

    // Runs each launch inside its NVTX range, numbered from `first`; returns the next number.
    static std::size_t run_all(const std::vector<GeometryCheck>& launches, const char* role, std::size_t first) {
        for (std::size_t n = 0; n < launches.size(); ++n) {
            const GeometryCheck& c = launches[n];
            const std::size_t i = first + n;
            std::cout << kLaunchLine << i << "\t" << role << "\t" << c.suite << "\t" << c.instance << "\t" << c.call
                      << std::endl;
            try {
                std::vector<DeviceBytes> buffers;
                std::vector<void*> pointers;
                for (std::size_t bytes : c.buffer_bytes) {
                    buffers.emplace_back(bytes);
                    fill_half(buffers.back().get(), bytes);
                    pointers.push_back(buffers.back().get());
                }
                GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
                push_gpu_profile_range(i);
                try {
                    c.launch(pointers);
                    GPULAB_CUDA_CHECK(cudaGetLastError());
                    GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
                } catch (...) {
                    pop_gpu_profile_range();
                    throw;
                }
                pop_gpu_profile_range();
            } catch (const std::exception& e) {
                std::string what = e.what();
                for (char& ch : what)
                    if (ch == '\n') ch = ' ';
                std::cout << kLaunchFailed << i << "\t" << what << std::endl;
                cudaGetLastError();
            }
        }
        return first + launches.size();
    }
};

// ---- Starting the child ------------------------------------------------------------------------------------

unsigned profile_time_limit_s() {
    if (const char* env = std::getenv("GPULAB_PROFILE_TIMEOUT_S"); env && *env) return unsigned(std::stoul(env));
    return 120;
}

// The GPU grader and the GPU build of the solution this process grades.
struct Target {
    std::string grader, library, reference, why;  // reference: "" when there is none to compare with
    std::string expert, expert_why;               // expert: the expert's GPU library; "" with expert_why when none
};

// In CPU execution mode: the lab's GPU grader and the GPU library of the solution whose CPU library this process
// loaded, from <build>/gpulab-labs/<lab>.json (found from the library: <build>/solutions/<lab>/.../libsolution.so).
Target gpu_target_from_manifest(const std::string& cpu_library) {
    Target t;
    try {
        const fs::path lib = fs::weakly_canonical(cpu_library);
        for (fs::path dir = lib.parent_path(); dir.has_relative_path(); dir = dir.parent_path()) {
            if (dir.filename() != "solutions") continue;
            const std::string lab = lab_config().at("lab");
            const fs::path manifest_path = dir.parent_path() / "gpulab-labs" / (lab + ".json");
            const Json manifest = load_json_file(manifest_path.string());
            t.grader = manifest.value("graders", Json::object()).value("gpu", "");
            for (const auto& [name, solution] : manifest.at("solutions").items()) {
                if (!solution.contains("cpu") || !solution.contains("gpu")) continue;
                if (name == "reference") t.reference = solution["gpu"].value("library", "");
                if (fs::weakly_canonical(solution["cpu"].value("library", "")) != lib) continue;
                t.library = solution["gpu"].value("library", "");
            }
            t.expert = expert_library_from_manifest(manifest, &t.expert_why);
            if (t.grader.empty() || t.library.empty())
                t.why = "this build has no GPU grader or GPU build of the solution for " + lab + " (" +
                        manifest_path.string() + "): configure with CUDA to read the GPU's counters";
            else if (!fs::exists(t.grader) || !fs::exists(t.library))
                t.why = "the GPU grader or the GPU build of the solution is not built (" + t.grader + ", " + t.library +
                        ")";
            return t;
        }
        t.why = "cannot find the build's lab manifest from the solution library " + cpu_library;
    } catch (const std::exception& e) {
        t.why = std::string("cannot read the build's lab manifest: ") + e.what();
    }
    return t;
}

Target profile_target() {
    const DeviceFacts& facts = device_facts();
    Target t;
    if (!facts.available) {
        t.why = "needs a CUDA GPU: " + facts.unavailable_reason;
        return t;
    }
    const std::string library = solution_library_path(Role::student);
    if (library.empty()) {
        t.why = "the student's library was not handed over (run the grader through gpulab-grade)";
        return t;
    }
    if (!facts.emulated) {
        t = Target{own_executable_path(), library, solution_library_path(Role::reference), "", "", ""};
        // The companion gpulab-grade handed over (gpulab/expert.h), as the roofline loads it.
        t.expert = companion_path(lab_config().at("lab").get<std::string>() + "/expert");
        if (t.expert.empty()) t.expert_why = kNoExpertInThisBuild;
        return t;
    }
    // CPU execution mode: profile the GPU build, where this machine has an NVIDIA GPU.
    std::error_code ignored;
    if (!fs::exists("/dev/nvidiactl", ignored) && !fs::exists("/dev/nvidia0", ignored)) {
        t.why = "no NVIDIA GPU on this machine (CPU execution mode counts the launch; the GPU's counters need a GPU)";
        return t;
    }
    return gpu_target_from_manifest(library);
}

std::vector<std::string> child_env(const Target& target, const std::string& home, bool only_yours) {
    const std::string& library = target.library;
    const std::string& reference = target.reference;
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('='));
        if (name == kWorkloadFlag || name == "GPULAB_SOLUTION_LIB" || name == "GPULAB_REFERENCE_LIB" ||
            name == kExpertLibrary || name == kOnlyYours || name == "HOME" || name == "TMPDIR" ||
            name == "GPULAB_SANITIZER_WORKLOAD")
            continue;
        env.push_back(entry);
    }
    env.push_back(std::string(kWorkloadFlag) + "=1");
    env.push_back("GPULAB_SOLUTION_LIB=" + library);
    if (!reference.empty() && reference != library) env.push_back("GPULAB_REFERENCE_LIB=" + reference);
    if (!target.expert.empty()) env.push_back(std::string(kExpertLibrary) + "=" + target.expert);
    if (only_yours) env.push_back(std::string(kOnlyYours) + "=1");
    env.push_back("HOME=" + home);  // ncu writes its settings under $HOME and its lock file under $TMPDIR
    env.push_back("TMPDIR=" + home);
    return env;
}

// One profiling session per GPU at a time (GpuProfileLock), and a retry where the driver refused anyway (a profiler
// the lock does not see).
bool driver_refused(const std::string& why) { return why.find("An error was reported by the driver") != std::string::npos; }

GpuProfile run_profile_once();

GpuProfile run_profile() {
    GpuProfile profile;
    for (int attempt = 0; attempt < 3; ++attempt) {
        {
            const GpuProfileLock lock;
            profile = run_profile_once();
        }
        if (profile.available || !driver_refused(profile.why)) break;
        std::this_thread::sleep_for(std::chrono::seconds(2 + 3 * attempt));
    }
    return profile;
}

// The two graders of one lab in one gpulab-grade run (the GPU's, and CPU execution mode's graded beside it, which
// profiles the GPU build for its technique tests) profile the same binaries: the first stores ncu's and the child's
// output under a name made of both binaries' identities, the metric list, the GPUs and the parent process (so only a
// sibling of the same grading ever reads it), and the second, waiting on the profiling lock meanwhile, reads it
// instead of starting ncu again (on an H200 lab 07's profile took 13.8 s).
std::string file_identity(const std::string& path) {
    std::error_code e;
    const auto size = fs::file_size(path, e);
    const auto when = fs::last_write_time(path, e).time_since_epoch().count();
    return path + ":" + std::to_string(e ? 0 : size) + ":" + std::to_string(e ? 0 : when);
}

const char* const kChildOutputMark = "\n==GPULAB-PROFILE-CHILD-OUTPUT==\n";

std::string shared_output_path(const Target& target, const std::string& metrics) {
    const char* tmp = std::getenv("TMPDIR");
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    const std::string key = file_identity(target.grader) + "|" + file_identity(target.library) + "|" +
                            file_identity(target.reference) + "|" + file_identity(target.expert) + "|" + metrics + "|" +
                            (visible ? visible : "all") + "|" + std::to_string(::getppid()) + "|" +
                            std::to_string(::getuid());
    char name[64];
    std::snprintf(name, sizeof name, "/gpulab-profile-shared-%016zx.txt", std::hash<std::string>{}(key));
    return (tmp && *tmp ? std::string(tmp) : std::string("/tmp")) + name;
}

// The sibling grader's stored run (above), read once and removed: false where there is none.
bool split_kept_run(const std::string& stored, std::string& ncu_out, std::string& child_out) {
    const std::size_t mark = stored.find(kChildOutputMark);
    if (mark == std::string::npos) return false;
    ncu_out = stored.substr(0, mark);
    child_out = stored.substr(mark + std::strlen(kChildOutputMark));
    return true;
}

bool read_shared_output(const std::string& shared, GpuProfile& profile, std::string& ncu_out, std::string& child_out) {
    const std::string stored = read_text_file(shared);
    const std::size_t first_line = stored.find('\n');  // the seconds the run took, then the run
    if (first_line == std::string::npos || !split_kept_run(stored.substr(first_line + 1), ncu_out, child_out))
        return false;
    profile.seconds = std::strtod(stored.c_str(), nullptr);
    profile.shared = true;
    std::error_code ignored;
    fs::remove(shared, ignored);  // read once: nothing is left behind in the temporary folder
    return true;
}

// The comparison cache. The reference's and the expert's rows depend on the grader (the lab's launch code), lab.json,
// the two libraries, the metrics and the GPU (counts of requests, sectors and bytes, not ncu's version), never on the
// student's code: a student who runs make grade again after
// editing a kernel rebuilds only their own library, and a class grading runs one grader over every submission. So a
// full run's output is kept, and a later run of the same binaries on the same kind of GPU profiles the student's
// launches only and takes the other rows from it (on an H200 the reference's and expert's launches are 3 of lab
// 04's 9 and 3 of lab 07's 7, each replayed in every pass). Kept in GPULAB_PROFILE_CACHE_DIR, else beside the GPU
// grader (<build>/labs/gpu-profile-cache); none where that cannot be written, in CPU execution mode (no GPU name
// to key on before the run), or where there is nothing to compare with.
std::string comparison_cache_path(const Target& target, const std::string& metrics) {
    const DeviceFacts& facts = device_facts();
    if (target.reference.empty() || facts.emulated || !facts.available) return "";
    // Grading the reference itself: the child profiles no reference rows (they would be the student's), so such a
    // run neither keeps nor uses the cache.
    std::error_code same_error;
    if (target.reference == target.library || fs::equivalent(target.reference, target.library, same_error)) return "";
    const char* env = std::getenv("GPULAB_PROFILE_CACHE_DIR");
    const fs::path dir = env ? fs::path(env) : fs::path(target.grader).parent_path() / "gpu-profile-cache";
    if (dir.empty()) return "";  // GPULAB_PROFILE_CACHE_DIR= turns it off
    std::error_code e;
    fs::create_directories(dir, e);
    if (e || ::access(dir.c_str(), W_OK) != 0) return "";
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    // lab.json too: it is read when the grader runs, and names the suites the profile runs (gpu_profile.suites).
    const std::string key = file_identity(target.grader) + "|" + file_identity(target.reference) + "|" +
                            file_identity(target.expert) + "|" + target.expert_why + "|" + metrics + "|" + facts.name +
                            "|" + std::to_string(facts.driver_version) + "|" + (visible ? visible : "all") + "|" +
                            lab_config().dump();
    char name[64];
    std::snprintf(name, sizeof name, "comparison-%016zx.txt", std::hash<std::string>{}(key));
    return (dir / name).string();
}

// A finished run's output kept at `path` (the sibling grader's copy, the comparison cache): `header`, ncu's output,
// kChildOutputMark, the child's output (split_kept_run reads it back). Written whole, then renamed: a grading beside
// reads all or nothing.
void write_kept_run(const std::string& path, const std::string& header, const std::string& ncu_out,
                    const std::string& child_out) {
    const std::string part = path + "." + std::to_string(::getpid()) + ".part";
    std::ofstream(part) << header << ncu_out << kChildOutputMark << child_out;
    std::error_code e;
    fs::rename(part, path, e);
    if (e) fs::remove(part, e);
}

// The reference's and the expert's launches of a kept run, and why it had no expert; false where none is kept.
bool cached_comparison(const std::string& path, std::vector<ProfiledLaunch>& launches, std::string& expert_why) {
    std::string ncu_out, child_out;
    if (path.empty() || !split_kept_run(read_text_file(path), ncu_out, child_out)) return false;
    launches = comparison_launches(ncu_out, child_out, &expert_why);
    return true;
}

GpuProfile run_profile_once() {
    GpuProfile profile;
    const Target target = profile_target();
    if (!target.why.empty()) {
        profile.why = target.why;
        return profile;
    }
    std::string looked;
    profile.ncu = find_ncu(&looked);
    if (profile.ncu.empty()) {
        profile.why = "Nsight Compute's CLI (ncu) was not found (looked in " + looked +
                      "): it comes with the CUDA toolkit (package cuda-nsight-compute-<version>); set GPULAB_NCU to its path";
        return profile;
    }
    std::string metrics;
    for (const std::string& m : profile_metrics()) metrics += (metrics.empty() ? "" : ",") + m;
    int status = 0;
    bool timed_out = false;
    const std::string shared = shared_output_path(target, metrics);
    const std::string cache = comparison_cache_path(target, metrics);
    // Where a full run of the same binaries was kept, the child runs the student's launches only.
    const std::string comparison = cache.empty() || !fs::exists(cache) ? std::string() : cache;
    std::string ncu_out, child_out;
    if (!read_shared_output(shared, profile, ncu_out, child_out)) {
        const char* keep = std::getenv("GPULAB_PROFILE_LOG_DIR");
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = (keep && *keep ? std::string(keep) : tmp && *tmp ? std::string(tmp) : std::string("/tmp")) +
                              "/gpulab-profile-XXXXXX";
        if (keep && *keep) fs::create_directories(keep);
        if (!::mkdtemp(pattern.data())) {
            profile.why = "cannot make a folder for ncu (" + pattern + "): " + std::strerror(errno);
            return profile;
        }
        const fs::path dir = pattern;
        const std::string csv = (dir / "ncu.csv").string(), log = (dir / "child.log").string();
        const auto started = std::chrono::steady_clock::now();
        try {
            const pid_t pid =
                // --clock-control none: ncu's default locks the whole GPU to its base clock while it profiles, which would
                // slow a timed test that runs beside this one (CPU execution mode's tests run beside the GPU grading); the
                // counters read here (bytes, requests, occupancy) do not depend on the clock.
                // --nvtx --nvtx-include: only kernels inside a launch's range are profiled, and each row names its
                // range (range_launch_index). A marker kernel launched before each launch did this before, and was
                // profiled in all the metrics' passes like any kernel.
                spawn_child({profile.ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
                             "--nvtx", "--nvtx-include", std::string("regex:") + kProfileRangePrefix + "[0-9]+/",
                             "--log-file", csv, "--metrics", metrics, target.grader, "--gtest_filter=GpuProfileWorkload.Run", "--gtest_color=no",
                             "--gtest_brief=1"},
                            child_env(target, dir.string(), !comparison.empty()), log, "ncu");
            const auto deadline = started + std::chrono::seconds(profile_time_limit_s());
            for (;;) {
                if (::waitpid(pid, &status, WNOHANG) == pid) break;
                if (std::chrono::steady_clock::now() > deadline) {
                    ::kill(-pid, SIGKILL);
                    ::kill(pid, SIGKILL);
                    ::waitpid(pid, &status, 0);
                    timed_out = true;
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        } catch (const std::exception& e) {
            profile.why = e.what();
            return profile;
        }
        profile.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        ncu_out = read_text_file(csv), child_out = read_text_file(log);
        std::error_code ignored;
        if (!keep || !*keep) fs::remove_all(dir, ignored);
        // For the sibling grader of this grading (above): a finished run that ncu did not refuse.
        if (!timed_out && ncu_failure_reason(ncu_out + "\n" + child_out).empty() &&
            child_out.find(kFinished) != std::string::npos) {
            write_kept_run(shared, fixed(profile.seconds, 3) + "\n", ncu_out, child_out);
            if (!cache.empty() && comparison.empty()) write_kept_run(cache, "", ncu_out, child_out);
        }
    }

    if (std::string reason = ncu_failure_reason(ncu_out + "\n" + child_out); !reason.empty()) {
        profile.why = reason;
        return profile;
    }
    if (timed_out) {
        profile.why = "the profile did not finish within " + std::to_string(profile_time_limit_s()) +
                      " s (GPULAB_PROFILE_TIMEOUT_S)";
        return profile;
    }
    // The child's own account: the launches in order, which failed.
    const std::vector<ProfiledLaunch> names = launches_of_child_log(child_out, &profile.expert_why);
    // The reference's and the expert's rows from the comparison cache, where the child left them to it (a sibling
    // grader reading this run's output finds the same line).
    std::vector<ProfiledLaunch> compared;
    if (child_out.find(kComparisonCached) != std::string::npos) {
        profile.comparison_cached = cached_comparison(cache, compared, profile.expert_why);
        if (!profile.comparison_cached) profile.expert_why = "the comparison cache was gone before it was read";
    }
    const bool expert_ran =
        std::any_of(names.begin(), names.end(), [](const ProfiledLaunch& l) { return l.role == "expert"; }) ||
        std::any_of(compared.begin(), compared.end(), [](const ProfiledLaunch& l) { return l.role == "expert"; });
    if (!target.expert_why.empty()) profile.expert_why = target.expert_why;
    else if (profile.expert_why.empty() && !expert_ran) profile.expert_why = "the profiled run ran no expert launch";
    if (child_out.find(kFinished) == std::string::npos) {
        profile.why = "the profiled run ended early (" +
                      (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                         : "signal " + std::to_string(WTERMSIG(status))) +
                      "): " + tail_of(child_out + "\n" + ncu_out, 600);
        return profile;
    }
    const std::vector<NcuRow> rows = parse_ncu_csv(ncu_out);
    if (rows.empty()) {
        profile.why = "ncu profiled no kernel: " + tail_of(ncu_out + "\n" + child_out, 600);
        return profile;
    }
    profile.device = device_of(rows);
    profile.launches = attribute_rows(rows, names);
    // Kept on this kind of GPU: its name and driver are part of the cache's key (comparison_cache_path).
    profile.launches.insert(profile.launches.end(), compared.begin(), compared.end());
    // NaN where a number must be: counters that could not be read.
    for (const ProfiledLaunch& l : profile.launches)
        for (const ProfiledKernel& k : l.kernels)
            if (std::isnan(k.metric(global_load_metric()))) {
                profile.why = "ncu gave no value (NaN) for " + global_load_metric() + " of " +
                              k.name + ": the counters could not be read";
                profile.launches.clear();  // after the message: `k` is one of them
                return profile;
            }
    profile.available = true;
    return profile;
}

// Splits one CSV line (quoted fields, "" as a quote inside).
std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') field += '"', ++i;
            else if (c == '"') quoted = false;
            else field += c;
        } else if (c == '"') quoted = true;
        else if (c == ',') fields.push_back(field), field.clear();
        else if (c != '\r') field += c;
    }
    fields.push_back(field);
    return fields;
}

// A number as ncu prints it ("1,048,576", "93.75", "n/a"): NaN when it is none.
double number_of(std::string text) {
    std::string digits;
    for (char c : text)
        if (c != ',' && c != ' ') digits += c;
    if (digits.empty()) return kNaN;
    char* end = nullptr;
    const double v = std::strtod(digits.c_str(), &end);
    return end && *end == '\0' ? v : kNaN;
}

}  // namespace

// ---- The GPU's profiling lock --------------------------------------------------------------------------------

namespace {
std::mutex lock_mutex;
int lock_depth = 0;
int lock_fd = -1;

std::string lock_path() {
    if (const char* env = std::getenv("GPULAB_PROFILE_LOCK"); env && *env) return env;
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    std::string gpus = visible && *visible ? visible : "all";
    for (char& c : gpus)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
    return "/tmp/gpulab-ncu-" + gpus + ".lock";
}
}  // namespace

GpuProfileLock::GpuProfileLock() {
    std::lock_guard<std::mutex> guard(lock_mutex);
    if (lock_depth++ > 0) return;  // this process holds it already
    lock_fd = ::open(lock_path().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (lock_fd < 0) return;       // no lock to be had: the profile's retry is what is left
    ::fchmod(lock_fd, 0666);       // another user's grading (a class sandbox user) may take it next
    while (::flock(lock_fd, LOCK_EX) != 0 && errno == EINTR) {
    }
}

GpuProfileLock::~GpuProfileLock() {
    std::lock_guard<std::mutex> guard(lock_mutex);
    if (--lock_depth > 0) return;
    if (lock_fd >= 0) ::close(lock_fd);  // releases the lock
    lock_fd = -1;
}

std::string profile_leaves_out(const std::string& suite) {
    try {
        const Json& lab = lab_config();
        if (!lab.contains("gpu_profile") || !lab.at("gpu_profile").contains("suites")) return "";
        const Json& spec = lab.at("gpu_profile");
        for (const Json& s : spec.at("suites"))
            if (s.get<std::string>() == suite) return "";
        std::string named;
        for (const Json& s : spec.at("suites")) named += (named.empty() ? "" : ", ") + s.get<std::string>();
        return "lab.json's gpu_profile profiles " + named + " only: replaying the other kernels under Nsight Compute "
               "costs more grading time than their figures are worth (lab 07's naive 4096^3 products: most of its "
               "14 s profile on an H200)";
    } catch (const std::exception&) {
        return "";  // a broken config fails the tests that read it
    }
}

// ---- The expert's launches -------------------------------------------------------------------------------------

namespace {
std::mutex expert_mutex;
std::vector<std::function<std::vector<ExpertLaunch>()>>& expert_makers() {
    static std::vector<std::function<std::vector<ExpertLaunch>()>> makers;
    return makers;
}
}  // namespace

bool add_expert_launches(std::function<std::vector<ExpertLaunch>()> make) {
    std::lock_guard<std::mutex> guard(expert_mutex);
    expert_makers().push_back(std::move(make));
    return true;
}

std::vector<ExpertLaunch> expert_launches() {
    std::lock_guard<std::mutex> guard(expert_mutex);
    static std::vector<ExpertLaunch> made;
    for (const auto& make : expert_makers()) {
        try {
            for (ExpertLaunch& e : make()) made.push_back(std::move(e));
        } catch (const std::exception&) {
            // a broken config fails the tests that read it; these are left out
        }
    }
    expert_makers().clear();
    return made;
}

std::vector<GeometryCheck> expert_runs(const std::vector<ExpertLaunch>& experts, const std::vector<GeometryCheck>& timed,
                                       const void* api) {
    std::vector<GeometryCheck> runs;
    for (const ExpertLaunch& e : experts) {
        GeometryCheck run{e.suite, "", e.instance, e.call, {}, {}};
        const auto beside = std::find_if(timed.begin(), timed.end(), [&](const GeometryCheck& c) {
            return c.suite == e.suite && c.instance == e.instance;
        });
        if (beside == timed.end()) {
            const std::string what = "grader error: the expert launch " + e.call + " is registered beside the timed launch " +
                                     e.suite + " " + e.instance + ", which is not registered";
            run.launch = [what](const std::vector<void*>&) { throw std::runtime_error(what); };
        } else {
            run.buffer_bytes = beside->buffer_bytes;
            run.launch = [api, launch = e.launch](const std::vector<void*>& buffers) { launch(api, buffers); };
        }
        runs.push_back(std::move(run));
    }
    return runs;
}

std::string expert_library_from_manifest(const Json& manifest, std::string* why) {
    const std::string library =
        manifest.value("expert", Json::object()).value("gpu", Json::object()).value("library", std::string());
    std::error_code ignored;
    if (library.empty()) *why = kNoExpertInThisBuild;
    else if (!fs::exists(library, ignored)) *why = "the expert's GPU library is not built (" + library + ")";
    else return library;
    return "";
}

// ---- The pieces ---------------------------------------------------------------------------------------------

std::string global_load_metric() {
    if (const char* env = std::getenv("GPULAB_NCU_GLOBAL_LOAD_METRIC"); env && *env) return env;
    return ncu_metric::kGlobalLoadBytes;
}

bool shared_bytes_counted(const Json& lab, std::string* why) {
    const bool counted = !lab.contains("gpu_profile") || lab.at("gpu_profile").value("shared_bytes", true);
    if (!counted && why)
        *why = "lab.json's gpu_profile leaves the GPU's shared-memory bytes out (\"shared_bytes\": false): counting "
               "them patches every shared load the timed launches execute (lab 07's four products: 3.3 s of a 6.7 s "
               "profile on an H200). Report.AccessAnalysis counts them exactly in CPU execution mode";
    return counted;
}

bool shared_bytes_counted(std::string* why) {
    try {
        return shared_bytes_counted(lab_config(), why);
    } catch (const std::exception&) {
        return true;  // a broken config fails the tests that read it
    }
}

std::vector<std::string> profile_metrics(bool count_shared_bytes) {
    using namespace ncu_metric;
    std::vector<std::string> all = {
        kDuration, kGlobalLoadBytes, kGlobalStoreBytes, kGlobalLoadRequests, kGlobalLoadSectors,
        kGlobalStoreRequests, kGlobalStoreSectors, kSharedLoadRequests, kSharedStoreRequests,
        kSharedLoadConflicts, kSharedStoreConflicts, kDramRead, kDramWrite,
        kAchievedOccupancy, kTheoreticalOccupancy, kLimitRegisters, kLimitShared, kLimitBlocks, kLimitWarps,
        kRegisters, kBlockSize, kGridSize, kDeviceName, kSharedStatic, kSharedDynamic, kLocalLoadBytes, kLocalStoreBytes,
        kBranchTargets, kBranchDivergent};
    if (count_shared_bytes) all.insert(all.end(), {kSharedLoadBytes, kSharedStoreBytes});
    if (global_load_metric() != kGlobalLoadBytes) all.push_back(global_load_metric());
    return all;
}

const std::vector<std::string>& profile_metrics() {
    static const std::vector<std::string> list = profile_metrics(shared_bytes_counted());
    return list;
}

double ProfiledKernel::metric(const std::string& m) const {
    const auto it = metrics.find(m);
    return it == metrics.end() ? kNaN : it->second;
}

double ProfiledLaunch::total(const std::string& m) const {
    double sum = 0;
    for (const ProfiledKernel& k : kernels) sum += k.metric(m);
    return kernels.empty() ? kNaN : sum;
}

const ProfiledLaunch* GpuProfile::find(const std::string& suite, const std::string& instance,
                                       const std::string& role) const {
    for (const ProfiledLaunch& l : launches)
        if (l.suite == suite && l.instance == instance && l.role == role) return &l;
    return nullptr;
}

const ProfiledLaunch* GpuProfile::find_in_suite(const std::string& suite, const std::string& role) const {
    for (const ProfiledLaunch& l : launches)
        if (l.suite == suite && l.role == role) return &l;
    return nullptr;
}

std::string find_ncu(std::string* looked) {
    std::vector<std::string> places;
    if (const char* env = std::getenv("GPULAB_NCU"); env && *env) {
        if (looked) *looked = std::string("GPULAB_NCU=") + env;
        return is_program_file(env) ? std::string(env) : std::string();
    }
    places.push_back("PATH");
    if (std::string on_path = program_on_path("ncu"); !on_path.empty()) return on_path;
    if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
        places.push_back(std::string(home) + "/bin");
        if (is_program_file(std::string(home) + "/bin/ncu")) return std::string(home) + "/bin/ncu";
    }
    places.push_back("/usr/local/cuda/bin");
    if (is_program_file("/usr/local/cuda/bin/ncu")) return "/usr/local/cuda/bin/ncu";
    if (looked) {
        looked->clear();
        for (const std::string& p : places) *looked += (looked->empty() ? "" : ", ") + p;
    }
    return "";
}

std::vector<NcuRow> parse_ncu_csv(const std::string& output) {
    std::vector<NcuRow> rows;
    std::vector<std::string> header;
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line.rfind("==", 0) == 0) continue;  // ==PROF==, ==WARNING==, ==ERROR==
        if (line.rfind("\"ID\",", 0) == 0) {
            header = csv_fields(line);
            continue;
        }
        if (header.empty() || line[0] != '"') continue;
        const std::vector<std::string> fields = csv_fields(line);
        if (fields.size() != header.size() || fields[0].empty()) continue;  // the units row has no ID
        NcuRow row;
        row.id = fields[0];
        for (std::size_t i = 0; i < header.size(); ++i) {
            row.text[header[i]] = fields[i];
            if (header[i] == "Kernel Name") row.kernel = fields[i];
            if (header[i].find("__") != std::string::npos) row.metrics[header[i]] = number_of(fields[i]);
        }
        rows.push_back(row);
    }
    return rows;
}

int range_launch_index(const NcuRow& row) {
    // ncu prints a kernel's push/pop ranges in a column named "thread Domain:Push/Pop_Range:...", as
    // '<tid>  "<default domain>:gpulab launch 3:none:none:..." ' (one quoted entry per open range).
    for (const auto& [column, value] : row.text) {
        if (column.find("Push/Pop_Range") == std::string::npos) continue;
        for (std::size_t at = value.find(kProfileRangePrefix); at != std::string::npos;
             at = value.find(kProfileRangePrefix, at + 1)) {
            const std::size_t digits = at + std::strlen(kProfileRangePrefix);
            std::size_t end = digits;
            while (end < value.size() && std::isdigit(static_cast<unsigned char>(value[end]))) ++end;
            // The range's name ends there: "gpulab launch 1" is not "gpulab launch 12".
            if (end > digits && (end == value.size() || value[end] == ':' || value[end] == '"'))
                return std::stoi(value.substr(digits, end - digits));
        }
    }
    return -1;
}

std::vector<ProfiledLaunch> launches_of_child_log(const std::string& child_out, std::string* expert_why) {
    std::vector<ProfiledLaunch> names;
    std::istringstream lines(child_out);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(kLaunchLine, 0) == 0) {
            std::istringstream f(line.substr(std::strlen(kLaunchLine)));
            std::string index;
            ProfiledLaunch l;
            std::getline(f, index, '\t');
            std::getline(f, l.role, '\t');
            std::getline(f, l.suite, '\t');
            std::getline(f, l.instance, '\t');
            std::getline(f, l.call);
            names.push_back(l);
        } else if (line.rfind(kLaunchFailed, 0) == 0) {
            const std::string rest = line.substr(std::strlen(kLaunchFailed));
            const std::size_t tab = rest.find('\t');
            const std::size_t i = std::stoul(rest.substr(0, tab));
            if (i < names.size()) names[i].error = tab == std::string::npos ? rest : rest.substr(tab + 1);
        } else if (line.rfind(kExpertNotProfiled, 0) == 0 && expert_why) {
            *expert_why = line.substr(std::strlen(kExpertNotProfiled));
        }
    }
    return names;
}

std::vector<ProfiledLaunch> attribute_rows(const std::vector<NcuRow>& rows, const std::vector<ProfiledLaunch>& names) {
    std::vector<ProfiledLaunch> launches = names;
    for (const NcuRow& row : rows) {
        const int launch = range_launch_index(row);
        if (launch < 0) continue;  // outside every launch's range: nothing of a timed launch
        if (std::size_t(launch) >= launches.size()) launches.resize(launch + 1);
        launches[launch].kernels.push_back(ProfiledKernel{row.kernel, row.metrics});
    }
    return launches;
}

std::vector<ProfiledLaunch> comparison_launches(const std::string& ncu_out, const std::string& child_out,
                                               std::string* expert_why) {
    const std::vector<NcuRow> rows = parse_ncu_csv(ncu_out);
    const std::vector<ProfiledLaunch> names = launches_of_child_log(child_out, expert_why);
    std::vector<ProfiledLaunch> out;
    for (ProfiledLaunch& l : attribute_rows(rows, names))
        if (l.role == "reference" || l.role == "expert") out.push_back(std::move(l));
    return out;
}

std::string ncu_failure_reason(const std::string& output) {
    if (output.find("ERR_NVGPUCTRPERM") != std::string::npos)
        return "this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM): an administrator can allow "
               "it for every user with the NVIDIA driver's module option NVreg_RestrictProfilingToAdminUsers=0 "
               "(see https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
    for (const char* unsupported : {"Device not supported", "not supported on this device", "No supported GPU"})
        if (output.find(unsupported) != std::string::npos)
            return std::string("ncu cannot profile this GPU (\"") + unsupported + "\")";
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("==ERROR==", 0) == 0) return "ncu reported an error: " + line.substr(9, 400);
    return "";
}

// ---- The profile and the check --------------------------------------------------------------------------------

const GpuProfile& gpu_profile() {
    static std::once_flag once;
    static GpuProfile profile;
    std::call_once(once, [] {
        try {
            profile = run_profile();
        } catch (const std::exception& e) {
            profile = GpuProfile{};
            profile.why = std::string("the profile failed: ") + e.what();
        }
    });
    return profile;
}

GpuCounterVerdict check_gpu_counters_agree(const std::string& suite, const std::string& instance,
                                           double cpu_elements_read_per_output, const GpuCounterAgreement& how) {
    return check_gpu_counters_agree(gpu_profile(), suite, instance, cpu_elements_read_per_output, how);
}

GpuCounterVerdict check_gpu_counters_agree(const GpuProfile& profile, const std::string& suite,
                                           const std::string& instance, double cpu_elements_read_per_output,
                                           const GpuCounterAgreement& how) {
    GpuCounterVerdict v;
    v.cpu = cpu_elements_read_per_output;
    const ProfiledLaunch* launch = profile.available ? profile.find(suite, instance) : nullptr;
    if (!profile.available) v.why = profile.why;
    else if (!launch) v.why = "the profile has no timed launch " + suite + " " + instance;
    else if (!launch->error.empty()) v.why = "the timed launch failed under the profiler: " + launch->error;
    else if (launch->kernels.empty()) v.why = "the timed launch " + launch->call + " ran no kernel under the profiler";
    else if (!(how.outputs > 0) || std::isnan(cpu_elements_read_per_output))
        v.why = "CPU execution mode's count of the timed launch is missing";
    if (!std::isnan(v.cpu)) testing::Test::RecordProperty("cpu_elements_read_per_output", fixed(v.cpu, 3));
    if (!v.why.empty()) {
        testing::Test::RecordProperty("gpu_counters", "not run: " + v.why);
        // GTEST_SKIP returns from the function it is in: here a lambda's, and the caller returns (verdict.ran false).
        // A skip that says nothing about the student's code: the tests that require this one still count.
        if (how.skip_when_unavailable) testing::Test::RecordProperty("skip_holds_back", "no");
        if (how.skip_when_unavailable) [&] { GTEST_SKIP() << "the GPU's counters were not read: " << v.why; }();
        return v;
    }
    // Elements read on the GPU: the bytes its threads loaded from global memory (see the note at the top of this file).
    v.ran = true;
    v.gpu = launch->total(global_load_metric()) / how.element_bytes / how.outputs;
    const double allowed = v.cpu * (1 + how.relative) + how.absolute;
    v.agree = v.gpu <= allowed;
    testing::Test::RecordProperty("gpu_elements_read_per_output", fixed(v.gpu, 3));
    testing::Test::RecordProperty("gpu_counters", "profiled in " + fixed(profile.seconds, 1) + " s (ncu, all timed launches" +
                                                      (profile.shared ? "; the run the GPU grader of this grading made)" : ")"));
    // One line per launch in the log (the properties keep the last launch's): the GPU's figure beside CPU mode's.
    std::printf("[gpu counters] %s: %s reads per %s: GPU %.3f, CPU execution mode %.3f (profile %.1f s)\n",
                launch->call.c_str(), how.element.c_str(), how.per.c_str(), v.gpu, v.cpu, profile.seconds);
    // The grade table's figure and bar (what record_figure records; called here directly, so that programs linking
    // the harness without a grader's main(), the self-tests, can run this check).
    testing::Test::RecordProperty("measured", fixed(v.gpu, 2) + " on the GPU, " + fixed(v.cpu, 2) +
                                                  " in CPU execution mode (" + how.element + " reads per " + how.per + ")");
    testing::Test::RecordProperty("threshold", "GPU <= CPU x " + fixed(1 + how.relative, 2) + " + " + fixed(how.absolute, 2));
    if (!std::isnan(how.cpu_shared_elements_read_per_output)) {
        const double cpu_shared = how.cpu_shared_elements_read_per_output;
        v.gpu_shared = launch->total(ncu_metric::kSharedLoadBytes) / how.element_bytes / how.outputs;
        const double least = cpu_shared / (1 + how.relative) - how.absolute;
        testing::Test::RecordProperty("gpu_shared_elements_read_per_output", fixed(v.gpu_shared, 3));
        testing::Test::RecordProperty("cpu_shared_elements_read_per_output", fixed(cpu_shared, 3));
        std::string uncounted;
        if (!shared_bytes_counted(&uncounted)) {
            v.agree = false;
            v.why = "grader error: this check compares shared-memory reads, and " + uncounted;
            ADD_FAILURE() << v.why;
        } else if (std::isnan(v.gpu_shared) || v.gpu_shared < least) {
            v.agree = false;
            const std::string shared_why =
                how.kernel + " reads " + fixed(v.gpu_shared, 1) + " values per " + how.per +
                " from shared memory on the GPU and " + fixed(cpu_shared, 1) +
                " in CPU execution mode: it must do the same work in both (" + launch->call + "; " +
                ncu_metric::kSharedLoadBytes + " over " + fixed(how.element_bytes, 0) + " B per " + how.per +
                "; at least " + fixed(std::max(0.0, least), 2) + " required).";
            ADD_FAILURE() << shared_why;
            v.why = shared_why;
        }
    }
    if (v.gpu > allowed) {
        v.why = how.kernel + " reads its " + how.element + " " + fixed(v.gpu, 1) + " times per " + how.per +
                " on the GPU and " + fixed(v.cpu, 1) + " times in CPU execution mode: it must do the same work in both (" +
                launch->call + "; the bytes its threads loaded from global memory on the GPU, " + global_load_metric() + ", over " +
                fixed(how.element_bytes, 0) + " B and the launch's " + fixed(how.outputs, 0) + " " + how.per +
                "s; at most " + fixed(allowed, 2) + " allowed). A kernel that takes another path on the GPU (a branch "
                "on __CUDA_ARCH__, on its size or on a mode argument) is judged by what it does there.";
        ADD_FAILURE() << v.why;
    }
    return v;
}

void register_gpu_profile_workload() {
    const char* flag = std::getenv(kWorkloadFlag);
    if (!flag || std::string(flag) != "1") return;
    testing::RegisterTest("GpuProfileWorkload", "Run", nullptr, nullptr, __FILE__, __LINE__,
                          []() -> testing::Test* { return new ProfileWorkload(); });
}

}  // namespace gpulab
