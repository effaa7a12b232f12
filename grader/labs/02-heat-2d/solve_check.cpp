#include "solve_check.h"

#include "heat_theory.h"
#include "time_step_checks.h"

#include "gpulab/format.h"
#include "gpulab/grader_test.h"

#include <cmath>
#include <limits>

namespace heat_2d_grading {

using gpulab::sci;

namespace {

std::vector<std::string> solve_case_names() {
    std::vector<std::string> names;
    for (const auto& [name, spec] : section("solve").items())
        if (spec.is_object()) names.push_back(name);
    return names;
}

// NaNs a computation produced, made distinct from the grader's poison (all bits set), so the
// comparator reports them as wrong values rather than as cells never written.
std::vector<float> requiet(std::vector<float> f) {
    for (float& v : f)
        if (std::isnan(v)) v = std::numeric_limits<float>::quiet_NaN();
    return f;
}

// Explains a solve that went wrong: where the worst cells are.
std::string explain_solve(const std::vector<float>& f, const std::vector<double>& expected, const Grid& g, double tol) {
    gpulab::Shape shape;
    shape.nx = std::size_t(g.nx + 2);
    shape.ny = std::size_t(g.ny + 2);
    std::vector<float> a = requiet(f);  // nothing was poisoned here: every NaN was computed
    std::vector<double> b = expected;
    for (int j : {0, g.ny + 1})
        for (int i : {0, g.nx + 1}) a[g.at(i, j)] = float(b[g.at(i, j)]);  // corners are not compared
    return gpulab::compare(a, b, shape, {tol, tol}).explain("solve (cells of the whole array, ghost ring included)");
}

}  // namespace

SolveCase solve_case(const std::string& name) {
    const Json& spec = gpulab::config_at(section("solve"), name);
    SolveCase c{name, {spec.at("nx").get<int>(), spec.at("ny").get<int>()}, spec.at("k"), 0, spec.at("tmax"), {}};
    if (name == "gaussian") {
        c.h = double(spec.at("length")) / c.g.nx;
        c.start = oracle::gaussian_start(c.g, c.h);
    } else {
        c.h = spec.at("h");
        gpulab::Rng rng(gpulab::run_seed());
        c.start = oracle::widen(random_field(rng, c.g));
    }
    return c;
}


std::vector<SolveParam> solve_params() {
    std::vector<SolveParam> params;
    for (const std::string& name : solve_case_names())
        for (int kernel : {kNaiveKernel, kTiledKernel}) params.push_back({name, kernel});
    return params;
}

std::string solve_param_name(const testing::TestParamInfo<SolveParam>& info) {
    return info.param.start + "_" + kernel_name(info.param.kernel);
}

double rel_l2_without_corners(const std::vector<float>& f, const std::vector<double>& expected, const Grid& g) {
    std::vector<float> a;
    std::vector<double> b;
    for (int j = 0; j <= g.ny + 1; ++j)
        for (int i = 0; i <= g.nx + 1; ++i)
            if (!g.corner(i, j)) {
                a.push_back(f[g.at(i, j)]);
                b.push_back(expected[g.at(i, j)]);
            }
    return gpulab::relative_l2_error(a, b);
}

void check_solve(const SolveParam& param) {
    const SolveCase c = solve_case(param.start);
    const int kernel = param.kernel;
    std::vector<float> f = oracle::narrow(c.start);
    const int expected_steps = oracle::steps_to(c.k, c.h, c.tmax);
    const double exact_steps = c.tmax / (0.25 * c.h * c.h / c.k);
    const std::string uneven = heat_grading::uneven_step_count_hint(c.tmax, exact_steps, expected_steps, "h^2 / 4k");
    int steps = 0;
    try {
        steps = student().solve(f.data(), c.g.nx, c.g.ny, c.k, c.h, c.tmax, kernel);
    } catch (const std::exception& e) {
        FAIL() << "solve(" << c.g.nx << " x " << c.g.ny << " cells, k = " << c.k << ", h = " << c.h
               << ", tmax = " << c.tmax << ", " << kernel_name(kernel) << ") threw: " << e.what() << "." << uneven;
    }

    const double r = c.k * (c.tmax / expected_steps) / (c.h * c.h);
    const std::vector<double> expected = oracle::integrate(oracle::widen(oracle::narrow(c.start)), c.g, r, expected_steps);
    const double error = rel_l2_without_corners(f, expected, c.g);
    const double tol = section("solve").at("rel_l2_tol");
    gpulab::record_figure("rel L2 err " + sci(error), "<= " + sci(tol, 0));
    GPULAB_EXPECT(steps == expected_steps) << "solve returned " << steps << " steps; the handout's rule (the largest "
                                           << "dt with r <= 1/4 that divides tmax) gives " << expected_steps << "."
                                           << uneven;
    if (error > tol) {
        ADD_FAILURE() << "After solving to t = " << c.tmax << " with the " << kernel_name(kernel) << " kernel (" << c.g.nx
                      << " x " << c.g.ny << " cells, k = " << c.k << ", h = " << c.h << "), the relative L2 error is "
                      << sci(error) << " (allowed " << sci(tol, 0) << ").\n"
                      << explain_solve(f, expected, c.g, tol)
                      << heat_grading::stalled_solve_hint(interior_of(f, c.g), interior_of(oracle::narrow(c.start), c.g),
                                                          interior_of(oracle::integrate(oracle::widen(oracle::narrow(c.start)), c.g, r, 1), c.g));
    }
}

}  // namespace heat_2d_grading
