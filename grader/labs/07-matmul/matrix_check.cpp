#include "matrix_check.h"

#include "gpulab/compare.h"
#include "gpulab/format.h"
#include "gpulab/guarded_array.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace matmul_grading {

using gpulab::sci;

std::string todo_steps(Kernel kernel) {
    switch (kernel) {
        case Kernel::naive: return "TODO(lab-7) steps 1 and 1b";
        case Kernel::tiled: return "TODO(lab-7) steps 2 and 2b";
        case Kernel::naive_bt: return "TODO(lab-7) step 3b";
        case Kernel::tiled_bt: return "TODO(lab-7) step 3c";
    }
    return "";
}

namespace {

std::string element_name(const Shape& s, std::size_t index) {
    return "C(" + std::to_string(index / s.n) + ", " + std::to_string(index % s.n) + ")";
}

// Why elements were never written, where the launch tells: no launch at all, or a grid that stops short
// of C's edge (exactly the elements past the covered rows and columns are missing).
std::string unwritten_cause(Kernel kernel, const Shape& s, const KernelRun& run, const std::vector<bool>& unwritten,
                            std::size_t count) {
    const std::size_t elements = std::size_t(s.m) * s.n;
    if (gpulab::launch_recording_supported() && run.launches.empty())
        return todo_steps(kernel) + ": " + launch_name(kernel) + " launched no kernel, so C was never written.";
    if (count == elements)
        return "Your kernel wrote no element of C: every one still holds the NaN the grader put there. Does each "
               "thread store its sum with c[row * n + col] = sum?";
    const gpulab::RecordedLaunch* l = main_launch(run);
    if (!l) return "";
    const long long rows = (long long)l->grid.y * l->block.y, cols = (long long)l->grid.x * l->block.x;
    if (rows >= s.m && cols >= s.n) return "";
    for (std::size_t i = 0; i < elements; ++i) {
        const bool outside = (long long)(i / s.n) >= rows || (long long)(i % s.n) >= cols;
        if (outside != unwritten[i]) return "";
    }
    return "Your grid (" + std::to_string(l->grid.x) + " x " + std::to_string(l->grid.y) + " blocks of " +
           std::to_string(l->block.x) + " x " + std::to_string(l->block.y) + " threads) covers only " +
           std::to_string(std::min<long long>(rows, s.m)) + " rows and " + std::to_string(std::min<long long>(cols, s.n)) +
           " columns of C's " + std::to_string(s.m) + " x " + std::to_string(s.n) +
           ": the elements past them are never computed. Round the grid up: (n + block.x - 1) / block.x blocks "
           "across, (m + block.y - 1) / block.y down; n / block.x drops the last, partial block (and is 0 when n "
           "is smaller than a block).";
}

}  // namespace

// The launch that covers C: the one with the most threads.
const gpulab::RecordedLaunch* main_launch(const KernelRun& run) {
    const gpulab::RecordedLaunch* best = nullptr;
    std::size_t most = 0;
    for (const gpulab::RecordedLaunch& l : run.launches) {
        const std::size_t threads = std::size_t(l.grid.x) * l.grid.y * l.grid.z * l.block.x * l.block.y * l.block.z;
        if (threads > most) most = threads, best = &l;
    }
    return best;
}

ProductReport check_product(Kernel kernel, const Shape& s, const KernelRun& first, const KernelRun& second,
                            const matmul_oracle::Product& expected, double factor,
                            const std::function<KernelRun(Fill)>& rerun) {
    ProductReport r;
    const std::size_t elements = std::size_t(s.m) * s.n;
    const float fill = gpulab::second_fill();
    std::vector<bool> unwritten(elements, false);
    std::size_t computed_nan = 0, differs = 0;
    std::ostringstream first_wrong;
    int shown = 0;
    // The partial tiles at the bottom and right edge, by the block of the covering launch.
    const gpulab::RecordedLaunch* l = main_launch(first);
    const long long full_rows = l ? (s.m / (long long)l->block.y) * l->block.y : 0;
    const long long full_cols = l ? (s.n / (long long)l->block.x) * l->block.x : 0;
    bool edge_only = l != nullptr;
    for (std::size_t i = 0; i < elements; ++i) {
        const float got = first.c[i];
        if (gpulab::is_poison(got) && gpulab::same_bits(second.c[i], fill)) {
            unwritten[i] = true;
            ++r.unwritten;
            ++r.wrong;
            if (shown < 5) first_wrong << "\n    " << element_name(s, i) << ": never written", ++shown;
            continue;
        }
        // NaN arithmetic may keep or drop a NaN operand's payload: only numbers are compared bit for bit.
        if (!std::isnan(got) && !std::isnan(second.c[i]) && !gpulab::same_bits(got, second.c[i])) ++differs;
        const double allowed = matmul_oracle::allowed_error(expected.magnitude[i], s.k, factor);
        const double error = std::fabs(double(got) - expected.c[i]);
        if (std::isnan(got)) ++computed_nan;
        if (error <= allowed) {
            if (allowed > 0) r.worst = std::max(r.worst, error / allowed);
            continue;
        }
        r.worst = std::isfinite(error) ? std::max(r.worst, allowed > 0 ? error / allowed : INFINITY) : INFINITY;
        ++r.wrong;
        if ((long long)(i / s.n) < full_rows && (long long)(i % s.n) < full_cols) edge_only = false;
        if (shown < 5)
            first_wrong << "\n    " << element_name(s, i) << ": got " << gpulab::num(got) << ", expected "
                        << gpulab::num(expected.c[i]) << " (allowed +-" << sci(allowed) << ")",
                ++shown;
    }
    r.ok = r.wrong == 0 && first.scope_problems.empty();
    r.edge_only = edge_only && r.wrong > r.unwritten;
    if (r.ok) return r;

    std::ostringstream m;
    m << call_text(kernel, s) << ":";
    if (r.wrong) {
        m << " " << r.wrong << " of " << elements << " elements of C are wrong";
        if (r.unwritten) m << " (" << r.unwritten << " never written)";
        m << ". The first:" << first_wrong.str();
        std::string cause;
        if (r.unwritten) cause = unwritten_cause(kernel, s, first, unwritten, r.unwritten);
        if (cause.empty() && differs)
            cause = std::to_string(differs) + " element(s) came out different when the grader ran the same launch "
                    "twice on the same inputs: the result depends on timing, a race. " +
                    (is_tiled(kernel) ? "Does every thread wait at __syncthreads() after loading the tiles (before "
                                        "any thread reads them) and again after multiplying them (before the next "
                                        "step overwrites them), and do all threads of the block reach both?"
                                      : "Does any thread write where another reads?");
        if (cause.empty() && computed_nan) {
            // Two ways to make NaN from inputs that hold none: add into C, which holds the grader's NaN before
            // the launch, or read memory nobody wrote. A run on a zeroed C tells them apart.
            const KernelRun zeroed = rerun(Fill::zeros);
            std::size_t still_wrong = 0;
            for (std::size_t i = 0; i < elements; ++i)
                still_wrong += !(std::fabs(double(zeroed.c[i]) - expected.c[i]) <=
                                 matmul_oracle::allowed_error(expected.magnitude[i], s.k, factor));
            if (still_wrong == 0)
                cause = "Your kernel adds into c[...] instead of storing its sum: C holds the grader's NaN before your "
                        "kernel runs (started from zeros, your kernel is right). Sum in a local float and store it once "
                        "at the end: c[row * n + col] = sum.";
            else
                cause = "Your kernel wrote NaN into " + std::to_string(computed_nan) +
                        " element(s), though A and B hold no NaN: it used a value nobody wrote. " +
                        (is_tiled(kernel) ? "Are tile elements read before they are loaded (a __syncthreads() between "
                                            "the loads and the multiply), and does every thread load its element of "
                                            "both tiles, zeros included?"
                                          : "Does it read past the end of a row of A or B?");
        }
        if (cause.empty() && r.edge_only && l && full_rows > 0 && full_cols > 0)
            cause = "Only elements in the partial tiles at the bottom or right edge of C are wrong (full tiles of " +
                    std::to_string(l->block.x) + " x " + std::to_string(l->block.y) +
                    " are right): tiles that stick out past the matrix must load 0.0f where there is no matrix.";
        if (!cause.empty()) m << "\n  Likely cause: " << cause;
    }
    if (!first.scope_problems.empty()) m << "\n  Outside C:" << first.scope_problems;
    r.message = m.str();
    return r;
}

}  // namespace matmul_grading
