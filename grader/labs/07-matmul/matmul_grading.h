// What lab 07's tests share: the solutions, the config, the kernels by name, inputs, and one checked run
// of a student's kernel on guarded buffers.
#pragma once

#include "api.h"

#include "gpulab/lab_config.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/random.h"

#include <string>
#include <vector>

namespace matmul_grading {

using gpulab::Json;

const MatmulApi& student();
const MatmulApi& reference();
const Json& section(const char* name);

// The four product kernels. The transpose is graded on its own.
enum class Kernel { naive, tiled, naive_bt, tiled_bt };
constexpr Kernel kKernels[] = {Kernel::naive, Kernel::tiled, Kernel::naive_bt, Kernel::tiled_bt};

const char* kernel_name(Kernel kernel);    // "naive", "tiled on Bt", ...
const char* launch_name(Kernel kernel);    // "launch_matmul_naive", ...
bool takes_bt(Kernel kernel);              // B is passed transposed (N x K)
bool is_tiled(Kernel kernel);
const char* timed_suite(Kernel kernel);     // the test suite that times it: "Naive", "TiledBt", ...
MatmulLaunch launcher(const MatmulApi& api, Kernel kernel);

struct Shape {
    int m = 1, n = 1, k = 1;
    double multiply_adds() const { return double(m) * n * k; }
    std::string name() const;  // "257x129x65" (M x N x K)
};

std::vector<Shape> shapes_of(const Json& list);  // [[m, n, k], ...]
std::string call_text(Kernel kernel, const Shape& s);  // "launch_matmul_tiled(m=257, n=129, k=65)"

// Fresh random inputs of both signs, never 0: A (m x k) and B (k x n), with Bt = B^T for the kernels
// that take it.
struct Inputs {
    std::vector<float> a, b, bt;
    const std::vector<float>& b_for(Kernel kernel) const { return takes_bt(kernel) ? bt : b; }
};
Inputs random_inputs(gpulab::Rng& rng, const Shape& s);

// What C holds before a launch: the grader's NaN poison; gpulab::second_fill() (a second opinion on which
// elements were never written); or zeros (does a kernel that adds into C come out right then?).
enum class Fill { poison, second, zeros };

// One launch of the student's kernel on guarded device buffers, C filled as asked: what it wrote, whether it
// left its inputs and the memory around all three buffers alone, and its launches.
struct KernelRun {
    std::vector<float> c;
    std::string scope_problems;  // "" when the inputs and every guard are intact
    std::vector<gpulab::RecordedLaunch> launches;
};
KernelRun run_student(Kernel kernel, const Inputs& in, const Shape& s, Fill fill = Fill::poison);

// Spot checks of a product too large for the whole oracle: `count` random elements and the four corners of
// C (A x B, B not transposed) against the oracle. "" when all are within tolerance, else what is wrong.
std::string spot_check(const Inputs& in, const std::vector<float>& c, const Shape& s, int count, gpulab::Rng& rng);
// The same, with C still on the device: only the checked elements are read back (a download of C at N = 5000
// costs more than the check).
std::string spot_check_device(const Inputs& in, const float* d_c, const Shape& s, int count, gpulab::Rng& rng);

}  // namespace matmul_grading
