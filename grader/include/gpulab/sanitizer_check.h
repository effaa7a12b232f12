// The sanitizer pass: the student's kernels, each launched once at a small size, run under NVIDIA's
// compute-sanitizer (racecheck, synccheck, memcheck, initcheck). A race the GPU happened to forgive (a
// missing barrier whose output came out right), a barrier in divergent code, an out-of-bounds access or a
// read of memory nobody wrote fails the lab's Sanitizer test with the tool's own words, the kernel and the
// source line.
//
// How it runs. Each lab's grader registers a workload (add_sanitizer_workload): the student's launch
// functions called once each on small, fully initialised, exactly sized buffers, the outputs checked against
// the lab's oracle. Sanitizer.NoErrors (check_kernels_with_sanitizer) starts this same grader binary under
// each tool, with only that workload to run, only the student's library to load (never the reference's: the
// tools must judge the student's kernels alone), no handshake and no result channel: the child cannot write
// the runner's results. The four tools run at once, each within a time limit. In the child, the workload is
// the only test (it exists only there, so the grader's own list of tests never shows it).
//
// The student's library is compiled with -lineinfo (GpulabLab.cmake), so the tools name source lines.
// Where compute-sanitizer is missing, or kernels run in CPU execution mode, the test skips with the reason
// ("not run"): its points are neither earned nor lost there.
#pragma once

#include "gpulab/compare.h"
#include "gpulab/cuda_check.h"
#include "gpulab/device_resources.h"

#include <functional>
#include <string>
#include <vector>

namespace gpulab {

// ---- In the lab's test file -------------------------------------------------------------------------

// Registers the lab's workload; returns true, for a namespace-scope initialiser:
//   const bool kSanitizerWorkload = gpulab::add_sanitizer_workload([] { ... });
// The workload is registered as a test only in the sanitizer's child process.
bool add_sanitizer_workload(std::function<void()> workload);

// In the workload: the output of one launch function (its name, e.g. "launch_step_tiled") is wrong, with
// what the comparison says. Under a clean report this means the kernel computed something else under the
// tool than it did in the correctness tests, and the test fails with it.
void workload_output_wrong(const std::string& launch, const std::string& what);
// The same from a comparison with the oracle; nothing when it is right.
void check_workload_output(const std::string& launch, const Comparison& comparison);

// An exactly sized device copy of a host array, for the workload: no guard zones and no slack, so memcheck
// sees an access one past the end as out of bounds, and initcheck sees every cell initialised.
template <typename T>
class ExactDeviceArray {
public:
    explicit ExactDeviceArray(const std::vector<T>& host) : count_(host.size()), bytes_(host.size() * sizeof(T)) {
        GPULAB_CUDA_CHECK(cudaMemcpy(bytes_.get(), host.data(), bytes_.size(), cudaMemcpyHostToDevice));
    }
    // `count` cells filled with the byte `fill` (the output: written before the kernel runs, as initcheck wants).
    ExactDeviceArray(std::size_t count, unsigned char fill) : count_(count), bytes_(count * sizeof(T)) {
        GPULAB_CUDA_CHECK(cudaMemset(bytes_.get(), fill, bytes_.size()));
    }
    T* data() const { return static_cast<T*>(bytes_.get()); }
    std::vector<T> download() const {
        std::vector<T> host(count_);
        GPULAB_CUDA_CHECK(cudaMemcpy(host.data(), bytes_.get(), bytes_.size(), cudaMemcpyDeviceToHost));
        return host;
    }

private:
    std::size_t count_;
    DeviceBytes bytes_;
};

// Sanitizer.NoErrors, where lab.json lists it (the grader binary's main registers it; not in the sanitizer's child):
// runs the lab's workload under each tool and fails with what they report.
void register_sanitizer_test();
void check_kernels_with_sanitizer();

// ---- What the test is made of (also for the grader's own tests) ----------------------------------------

// compute-sanitizer's path: $GPULAB_COMPUTE_SANITIZER, else on PATH, else $CUDA_HOME/bin, else
// /usr/local/cuda/bin; "" when none is there. `looked` (if given) says where it looked.
std::string find_compute_sanitizer(std::string* looked = nullptr);

// One problem a tool reported.
struct SanitizerFinding {
    std::string tool;      // "racecheck"
    std::string kernel;    // "stencil_coarsened<float>", without its parameter list
    std::string location;  // "stencil3d_coarsening.cu:47", where the tool names one
    std::string sentence;  // the tool's words, paths shortened to file names: "Race reported between Write
                           // access at stencil3d_coarsening.cu:47 and Read access at ...:44 [1860 hazards]"
    std::vector<std::string> details;  // its further lines ("by thread (31,0,0) in block (0,0,0)", ...)
    std::string source_path;           // the full path of `location`'s file, as the tool printed it
};

// The problems in one tool's text output (without --xml); the summary lines are not problems.
std::vector<SanitizerFinding> parse_sanitizer_output(const std::string& tool, const std::string& output);

// What the student reads about the tools' problems: each problem once (one kind of problem at one line of one
// kernel, however many instructions, threads and blocks met it), at most `limit` of them, each with the source line's text where the file can be read, and what
// that kind of problem usually means.
std::string describe_findings(const std::vector<SanitizerFinding>& findings, std::size_t limit = 4);

}  // namespace gpulab
