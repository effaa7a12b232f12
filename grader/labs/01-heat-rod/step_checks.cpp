#include "step_checks.h"

#include "oracle.h"
#include "rod_grading.h"

#include "gpulab/compare.h"
#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"

#include <algorithm>
#include <cmath>

namespace heat_rod_grading {

using gpulab::fixed;
using gpulab::GuardedDeviceArray;
using gpulab::num;
using gpulab::same_bits;
using gpulab::sci;
namespace oracle = heat_rod_oracle;

std::vector<StepCase> step_cases() {
    return heat_grading::step_cases<int>(section("step"), [](const Json& size) { return size.get<int>(); });
}

std::string step_case_name(const testing::TestParamInfo<StepCase>& info) {
    return "M" + std::to_string(info.param.grid) + "_r" + gpulab::name_safe(info.param.r);
}

std::vector<int> sizes_of(const char* section_name) { return section(section_name).at("sizes").get<std::vector<int>>(); }

std::string size_name(const testing::TestParamInfo<int>& info) { return "M" + std::to_string(info.param); }

void check_step(const StepCase& c) {
    const int M = c.grid;
    const float r = float(c.r);
    const gpulab::Tolerance tol{section("step").at("rel_tol"), section("step").at("abs_tol")};
    auto rng = gpulab::Rng::for_current_test();
    const auto stepped = [&](const std::vector<float>& f) { return interior_of(oracle::step(oracle::widen(f), double(r))); };
    const std::vector<float> in = heat_grading::draw_visibly_changed([&] { return random_rod(rng, M); }, stepped,
                                                                     interior_of<float>, 100 * tol.allowed(2.0));
    GPULAB_ASSERT(!in.empty()) << "grader error: cannot draw an input the step visibly changes";
    const std::vector<double> expected = oracle::step(oracle::widen(in), double(r));
    GuardedDeviceArray<float> d_in(M), d_out(M);
    d_in.upload(in);

    student().launch_step(d_in.data(), d_out.data(), M, r);
    gpulab::check_student_launch("launch_step");

    const std::vector<float> out = d_out.download();
    const std::vector<float> interior = interior_of(out);
    const std::vector<double> expected_interior = interior_of(expected);
    gpulab::Shape shape;
    shape.nx = std::size_t(M - 2);
    shape.origin_x = 1;
    const gpulab::Comparison result = gpulab::compare(interior, expected_interior, shape, tol);
    gpulab::record_figure(result.figure(), "per cell " + sci(tol.abs, 0) + " + " + sci(tol.rel, 0) + "|f|");
    GPULAB_EXPECT(result.ok()) << result.explain("launch_step(M=" + std::to_string(M) + ", r=" + fixed(r, 2) + ")");
}

void check_step_scope(int M) {
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> in = random_rod(rng, M);
    GuardedDeviceArray<float> d_in(M), d_out(M);
    d_in.upload(in);

    student().launch_step(d_in.data(), d_out.data(), M, 0.25f);
    gpulab::check_student_launch("launch_step");

    const std::vector<float> out = d_out.download();
    const auto unwritten = std::count_if(out.begin() + 1, out.end() - 1, [](float v) { return gpulab::is_poison(v); });
    GPULAB_ASSERT(unwritten == 0) << "launch_step left " << unwritten << " of the " << M - 2
                                  << " interior cells unwritten. This test checks what else the step kernel "
                                     "touches, so it can only pass once the kernel writes every interior cell.";
    std::size_t changed = 0;
    const long first = gpulab::first_difference(d_in.download(), in, &changed);
    GPULAB_EXPECT(changed == 0) << "launch_step changed its INPUT array at " << changed << " cell(s), first at cell "
                                << first << ". The step must be out-of-place: read only `in`, write only `out`. "
                                << "Updating one array in place races: a block can read a neighbour that another "
                                   "block has already overwritten, and __syncthreads() cannot order different blocks.";
    GPULAB_EXPECT(gpulab::is_poison(out.front()))
        << "launch_step wrote out[0] = " << num(out.front()) << ": cells 0 and M-1 belong to the boundary kernel.";
    GPULAB_EXPECT(gpulab::is_poison(out.back()))
        << "launch_step wrote out[M-1] = " << num(out.back()) << ": cells 0 and M-1 belong to the boundary kernel.";
    for (const auto* array : {&d_in, &d_out}) {
        const gpulab::GuardReport guards = array->check_guards();
        GPULAB_EXPECT(guards.intact()) << "launch_step(M=" << M << "): "
                                       << guards.describe(array == &d_in ? "the input array" : "the output array");
    }
    gpulab::record_figure(changed == 0 ? "only 1..M-2 written" : "input changed", "nothing else written");
}

void check_boundary(int M) {
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> before = random_rod(rng, M);
    GuardedDeviceArray<float> d_f(M);
    d_f.upload(before);

    student().launch_boundary(d_f.data(), M);
    gpulab::check_student_launch("launch_boundary");

    const std::vector<float> after = d_f.download();
    const auto name_of = [&](float value) -> std::string {
        for (int i = 0; i < M; ++i)
            if (same_bits(value, before[i])) return " (the value f[" + std::to_string(i) + "] had before the call)";
        return gpulab::is_poison(value) ? " (NaN)" : "";
    };
    GPULAB_EXPECT(same_bits(after[0], before[1]))
        << "f[0] should equal f[1] = " << num(before[1]) << " but is " << num(after[0])
        << (same_bits(after[0], before[0]) ? " (unchanged: nothing wrote f[0])" : name_of(after[0])) << ".";
    GPULAB_EXPECT(same_bits(after[M - 1], before[M - 2]))
        << "f[M-1] should equal f[M-2] = " << num(before[M - 2]) << " but is " << num(after[M - 1])
        << (same_bits(after[M - 1], before[M - 1]) ? " (unchanged: nothing wrote f[M-1])" : name_of(after[M - 1]))
        << ". (M = " << M << ": the last cell is f[" << M - 1 << "].)";
    std::size_t changed = 0;
    const std::vector<float> inner_after(after.begin() + 1, after.end() - 1), inner_before(before.begin() + 1, before.end() - 1);
    const long first = gpulab::first_difference(inner_after, inner_before, &changed);
    GPULAB_EXPECT(changed == 0) << "launch_boundary changed " << changed << " interior cell(s), first at cell " << first + 1
                                << ": it may write only f[0] and f[M-1].";
    const gpulab::GuardReport guards = d_f.check_guards();
    GPULAB_EXPECT(guards.intact()) << "launch_boundary(M=" << M << "): " << guards.describe("the array");
    gpulab::record_figure("ends mirror neighbours", "bitwise");
}

}  // namespace heat_rod_grading
