#include "solve_check.h"

#include "oracle.h"
#include "rod_grading.h"

#include "heat_theory.h"
#include "time_step_checks.h"

#include "gpulab/compare.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"

namespace heat_rod_grading {

using gpulab::sci;
namespace oracle = heat_rod_oracle;

namespace {

struct SolveCase {
    std::string name;
    int M;
    double k, dx, tmax;
    std::vector<double> start;
};

SolveCase solve_case(const std::string& name) {
    const Json& spec = gpulab::config_at(section("solve"), name);
    SolveCase c{name, spec.at("M"), spec.at("k"), 0, spec.at("tmax"), {}};
    if (name == "gaussian") {
        const double length = spec.at("length");
        c.dx = length / (c.M - 2);
        c.start = oracle::gaussian_start(c.M, length);
    } else {
        c.dx = spec.at("dx");
        gpulab::Rng rng(gpulab::run_seed());
        c.start = oracle::widen(random_rod(rng, c.M));
    }
    return c;
}

}  // namespace

std::vector<std::string> solve_case_names() {
    std::vector<std::string> names;
    for (const auto& [name, spec] : section("solve").items())
        if (spec.is_object()) names.push_back(name);
    return names;
}

void check_solve(const std::string& name) {
    const SolveCase c = solve_case(name);
    std::vector<float> f(c.start.begin(), c.start.end());
    const int expected_steps = oracle::steps_to(c.k, c.dx, c.tmax);
    const double exact_steps = c.tmax / (0.5 * c.dx * c.dx / c.k);
    const std::string uneven = heat_grading::uneven_step_count_hint(c.tmax, exact_steps, expected_steps, "dx^2 / 2k");
    int steps = 0;
    try {
        steps = student().solve(f.data(), c.M, c.k, c.dx, c.tmax);
    } catch (const std::exception& e) {
        FAIL() << "solve(M = " << c.M << ", k = " << c.k << ", dx = " << c.dx << ", tmax = " << c.tmax
               << ") threw: " << e.what() << "." << uneven;
    }

    const double r = c.k * (c.tmax / expected_steps) / (c.dx * c.dx);
    const std::vector<double> expected = oracle::integrate(c.start, r, expected_steps);
    const double error = gpulab::relative_l2_error(f, expected);
    const double tol = section("solve").at("rel_l2_tol");
    gpulab::record_figure("rel L2 err " + sci(error), "<= " + sci(tol, 0));
    GPULAB_EXPECT(steps == expected_steps) << "solve returned " << steps << " steps; the handout's rule (the largest "
                                           << "stable dt that divides tmax) gives " << expected_steps << "." << uneven;
    if (error > tol) {
        gpulab::Shape shape;
        shape.nx = f.size();
        const auto cells = gpulab::compare(f, expected, shape, {tol, tol});
        const std::vector<float> start(c.start.begin(), c.start.end());
        ADD_FAILURE() << "After solving to t = " << c.tmax << " (M = " << c.M << ", k = " << c.k << ", dx = " << c.dx
                      << "), the relative L2 error is " << sci(error) << " (allowed " << sci(tol, 0) << ").\n"
                      << cells.explain("solve")
                      << heat_grading::stalled_solve_hint(f, start, oracle::integrate(c.start, r, 1));
    }
}

}  // namespace heat_rod_grading
