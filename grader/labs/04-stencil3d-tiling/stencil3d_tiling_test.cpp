// The grader of lab 04 (3D seven-point stencil: naive and tiled kernels, and a 3D heat solver). Points,
// sizes and tolerances come from labs/04-stencil3d-tiling/lab.json; the handout describes every test by
// the same name. Stability and the reports are registered once for the three labs
// (grader/shared/stencil3d/shared_tests.cpp), and every check is shared with labs 05 and 06.
#include "oracle.h"
#include "speed.h"
#include "stencil_check.h"
#include "technique_checks.h"
#include "timed_technique.h"
#include "time_step_checks.h"

#include "gpulab/compare.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"

#include <cmath>
#include <cstring>

namespace {

using namespace stencil3d_grading;
using gpulab::fixed;
using gpulab::sci;

// ---- The kernels --------------------------------------------------------------------------------------

class NaiveStencil : public testing::TestWithParam<StencilCase> {};
class TiledStencil : public testing::TestWithParam<StencilCase> {};

TEST_P(NaiveStencil, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    check_matches_oracle(Technique::naive, GetParam());
}

TEST_P(TiledStencil, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    check_matches_oracle(Technique::tiled, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Sizes, NaiveStencil, testing::ValuesIn(correctness_cases()), case_name);
// Both kernels at the timed sizes, in a dry run: instances of their MatchesOracle.
const bool kTimedGeometry = gpulab::add_geometry_checks([] {
    auto checks = timed_geometry_checks(Technique::naive, "NaiveStencil");
    for (auto& check : timed_geometry_checks(Technique::tiled, "TiledStencil")) checks.push_back(std::move(check));
    return with_timed_draws(std::move(checks));  // their buffers as the speed test draws them
});
// The expert stencil beside the tiled kernel in the GPU profile, where the build has the expert.
const bool kExpertProfile =
    gpulab::set_expert_beside([] { return expert_beside_launch("TiledStencil"); });
INSTANTIATE_TEST_SUITE_P(Sizes, TiledStencil, testing::ValuesIn(correctness_cases()), case_name);

TEST(Technique, SharedMemoryTile) {
    check_structure(Technique::naive);
    check_structure(Technique::tiled);
}

TEST(Technique, ComputesFromSharedTile) { check_reads(Technique::tiled); }

// ---- The heat solver's host code --------------------------------------------------------------------------

const HeatSolver& solver() { return student().solver; }
const char* kernel_name(int kernel) { return kernel == 1 ? "tiled" : "naive"; }

constexpr heat_grading::Dimension kBox{3};

TEST(Stability, ChosenDtIsStable) {
    heat_grading::check_chosen_dt(kBox, section("stability"), "h", solver().choose_dt);
}

TEST(Stability, RefusesUnstableDt) {
    const Grid3 g{10, 9, 8};
    const double k = 1.0, h = 0.1;
    std::vector<float> f(g.cells(), 1.0f);
    f[g.at(5, 4, 4)] = 2.0f;
    for (int kernel : {0, 1})
        heat_grading::check_refuses_unstable_dt(
            kBox, f, section("stability").at("refused_ratios"), h * h / k,
            std::string("integrate(..., ") + kernel_name(kernel) + ")",
            [&](double dt) { solver().integrate_f32(f.data(), g.nx, g.ny, g.nz, k, h, dt, 10, kernel); });
}

struct SolveParam {
    std::string name;
    int kernel;
    Precision precision;
};

std::vector<SolveParam> solve_params() {
    std::vector<SolveParam> params;
    for (const gpulab::Json& c : section("solve").at("cases"))
        for (int kernel : {0, 1})
            for (Precision p : {Precision::f32, Precision::f64}) params.push_back({c.at("name"), kernel, p});
    return params;
}

// A hot cube in the middle of a box whose walls are held at values of their own: the boundary must keep
// them, and heat must flow in from the walls and out of the cube.
template <typename T>
std::vector<T> solve_start(const Grid3& g) {
    std::vector<T> f(g.cells());
    for (int z = 0; z < g.nz; ++z)
        for (int y = 0; y < g.ny; ++y)
            for (int x = 0; x < g.nx; ++x) {
                const bool hot = std::abs(2 * x - g.nx) < g.nx / 3 && std::abs(2 * y - g.ny) < g.ny / 3 &&
                                 std::abs(2 * z - g.nz) < g.nz / 3;
                f[g.at(x, y, z)] = g.interior(x, y, z) ? T(hot ? 2.0 : 0.5) : T(1.0 + 0.01 * x + 0.02 * y - 0.015 * z);
            }
    return f;
}

template <typename T>
void check_solve(const SolveParam& param) {
    gpulab::Json spec;
    for (const gpulab::Json& c : section("solve").at("cases"))
        if (c.at("name") == param.name) spec = c;
    const Grid3 g{spec.at("size").at(0), spec.at("size").at(1), spec.at("size").at(2)};
    const double k = spec.at("k"), h = spec.at("h"), tmax = spec.at("tmax");
    const std::vector<T> start = solve_start<T>(g);
    std::vector<T> f = start;
    const int expected_steps = oracle::steps_to(k, h, tmax);
    const std::string uneven =
        heat_grading::uneven_step_count_hint(tmax, tmax / (h * h / (6 * k)), expected_steps, "h^2 / 6k");
    const std::string call = std::string("solve(") + precision_name(param.precision) + ", " + g.name() + ", k = " +
                             gpulab::num(k) + ", h = " + gpulab::num(h) + ", tmax = " + gpulab::num(tmax) + ", " +
                             kernel_name(param.kernel) + ")";
    int steps = 0;
    try {
        if constexpr (sizeof(T) == 4) steps = solver().solve_f32(f.data(), g.nx, g.ny, g.nz, k, h, tmax, param.kernel);
        else steps = solver().solve_f64(f.data(), g.nx, g.ny, g.nz, k, h, tmax, param.kernel);
    } catch (const std::exception& e) {
        FAIL() << call << " threw: " << e.what() << "." << uneven;
    }
    const double r = k * (tmax / expected_steps) / (h * h);
    const std::vector<double> expected = oracle::heat_steps(oracle::widen(start), g, r, expected_steps);
    const double error = gpulab::relative_l2_error(oracle::widen(f), expected);
    const double tol = section("solve").at("rel_l2_tol").at(precision_name(param.precision));
    std::size_t boundary_changed = 0;
    for (int z = 0; z < g.nz; ++z)
        for (int y = 0; y < g.ny; ++y)
            for (int x = 0; x < g.nx; ++x)
                boundary_changed += !g.interior(x, y, z) && !gpulab::same_bits(f[g.at(x, y, z)], start[g.at(x, y, z)]);
    gpulab::record_figure(std::to_string(steps) + " steps, rel L2 err " + sci(error),
                          std::to_string(expected_steps) + " steps, <= " + sci(tol, 0));
    GPULAB_EXPECT(steps == expected_steps) << call << " returned " << steps << " steps; the handout's rule (the largest "
                                           << "dt with r <= 1/6 that divides tmax) gives " << expected_steps << "."
                                           << uneven;
    GPULAB_EXPECT(boundary_changed == 0)
        << call << " changed " << boundary_changed << " boundary cell(s). The boundary holds fixed values: both device "
        << "buffers start as a copy of f, and the kernels never write the boundary, so it stays as it was.";
    GPULAB_EXPECT(error <= tol)
        << call << ": the relative L2 error against the oracle is " << sci(error) << " (allowed " << sci(tol, 0) << ")."
        << (gpulab::relative_l2_error(oracle::widen(f), oracle::widen(start)) < 1e-12
                ? " Your result is exactly the start: does integrate copy back the buffer that holds the last step?"
                : " Does each step read what the previous one wrote (swap the two buffers after each launch), and "
                  "does integrate pass c0 = 1 - 6r and c1..c6 = r?");
}

class Solve : public testing::TestWithParam<SolveParam> {};

TEST_P(Solve, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    if (GetParam().precision == Precision::f32) check_solve<float>(GetParam());
    else check_solve<double>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, Solve, testing::ValuesIn(solve_params()), [](const auto& info) {
    return info.param.name + "_" + kernel_name(info.param.kernel) + "_" + precision_name(info.param.precision);
});

// ---- Speed ---------------------------------------------------------------------------------------

class Speed : public testing::TestWithParam<StencilCase> {};

TEST_P(Speed, NaiveThroughput) { check_speed(Technique::naive, GetParam()); }
TEST_P(Speed, TiledThroughput) { check_speed(Technique::tiled, GetParam()); }

INSTANTIATE_TEST_SUITE_P(Sizes, Speed, testing::ValuesIn(speed_cases()), case_name);

}  // namespace
