// The product kernels against the oracle (product_checks.h).
#include "product_checks.h"

#include "matrix_check.h"
#include "oracle.h"

#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/phase_clock.h"

#include <algorithm>
#include <optional>

namespace matmul_grading {

using gpulab::fixed;

// A shape whose sizes are not whole tiles failed: does the kernel get whole tiles right? If it does, the
// bug is at the matrix edge, and the message can say so with confidence.
namespace {

std::string edge_probe(Kernel kernel, const Shape& s, const KernelRun& run, double factor) {
    const gpulab::RecordedLaunch* launch = main_launch(run);
    if (!launch) return "";
    const int bx = int(launch->block.x), by = int(launch->block.y);
    const int tile = std::max(bx, by);
    if (s.m % by == 0 && s.n % bx == 0 && s.k % tile == 0) return "";
    const Shape whole{2 * by, 2 * bx, 4 * tile};
    auto rng = gpulab::Rng::for_current_test();
    const Inputs in = random_inputs(rng, whole);
    const auto rerun = [&](Fill fill) { return run_student(kernel, in, whole, fill); };
    const ProductReport probe = check_product(kernel, whole, rerun(Fill::poison), rerun(Fill::second),
                                              matmul_oracle::multiply(in.a, in.b, whole.m, whole.n, whole.k), factor, rerun);
    if (!probe.ok) return "";
    return "\n  Likely cause: the matrix edge. At " + whole.name() + " (M x N x K, whole " + std::to_string(bx) + " x " +
           std::to_string(by) + " tiles) the same kernel is right; at " + s.name() +
           ", where tiles stick out past the matrix, it is not. " +
           (is_tiled(kernel) ? "Every tile load must check its row and column against the matrix (m and k for A, k "
                               "and n for B) and store 0.0f outside it, the loop over k must cover a last, partial "
                               "tile ((k + TILE - 1) / TILE steps), and only threads inside C may write."
                             : "Every thread must check row < m and col < n before it writes, and the loop over k "
                               "must run to k exactly.");
}

}  // namespace

void check_kernel(Kernel kernel, const Shape& s) {
    GPULAB_REQUIRE_DEVICE();
    const double factor = section("correctness").at("tolerance_factor");
    auto rng = gpulab::Rng::for_current_test();
    std::optional<gpulab::PhaseClock> phase(std::in_place, "inputs");
    const Inputs in = random_inputs(rng, s);
    const auto rerun = [&](Fill fill) { return run_student(kernel, in, s, fill); };
    phase.emplace("two launches");
    const KernelRun first = rerun(Fill::poison), second = rerun(Fill::second);
    phase.emplace("oracle");
    const matmul_oracle::Product expected = matmul_oracle::multiply(in.a, in.b, s.m, s.n, s.k);
    phase.emplace("check");
    const ProductReport r = check_product(kernel, s, first, second, expected, factor, rerun);
    phase.reset();
    // A case failed with every value right wrote where it must not: the figure says so, not only the error.
    gpulab::record_figure(r.wrong ? std::to_string(r.wrong) + " of " + std::to_string(std::size_t(s.m) * s.n) + " wrong at " + s.name()
                          : r.ok  ? "largest error " + fixed(r.worst, 2) + "x allowed"
                                  : "values right, but wrote outside C or into an input at " + s.name(),
                          "|error| <= " + fixed(factor, 0) + " u sqrt(K) sum|A B| per element");
    if (r.ok) return;
    std::string message = r.message;
    if (r.wrong > r.unwritten && message.find("Likely cause") == std::string::npos) message += edge_probe(kernel, s, first, factor);
    ADD_FAILURE() << message;
}

}  // namespace matmul_grading
