// Lab 04's heat solver against the oracle (solver_checks.h).
#include "solver_checks.h"

#include "oracle.h"
#include "time_step_checks.h"

#include "gpulab/compare.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"

#include <cmath>
#include <cstring>

namespace stencil3d_grading {

using gpulab::sci;

namespace {

const HeatSolver& solver() { return student().solver; }
const char* kernel_name(int kernel) { return kernel == 1 ? "tiled" : "naive"; }

constexpr heat_grading::Dimension kBox{3};

}  // namespace

void check_chosen_dt() { heat_grading::check_chosen_dt(kBox, section("stability"), "h", solver().choose_dt); }

void check_refuses_unstable_dt() {
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

std::vector<SolveParam> solve_params() {
    std::vector<SolveParam> params;
    for (const gpulab::Json& c : section("solve").at("cases"))
        for (int kernel : {0, 1})
            for (Precision p : {Precision::f32, Precision::f64}) params.push_back({c.at("name"), kernel, p});
    return params;
}

std::string solve_case_name(const SolveParam& param) {
    return param.name + "_" + kernel_name(param.kernel) + "_" + precision_name(param.precision);
}

namespace {

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
void check_solve_in(const SolveParam& param) {
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

}  // namespace

void check_solve(const SolveParam& param) {
    if (param.precision == Precision::f32) check_solve_in<float>(param);
    else check_solve_in<double>(param);
}

}  // namespace stencil3d_grading
