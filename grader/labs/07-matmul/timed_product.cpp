#include "timed_product.h"

#include "oracle.h"

#include "gpulab/cuda_check.h"
#include "gpulab/fresh_inputs.h"
#include "gpulab/random.h"
#include "gpulab/spot_check.h"

#include <memory>

namespace matmul_grading {
namespace {

// The kernels the student's launch runs at the first technique shape (lab.json technique.shapes_mnk).
std::vector<gpulab::RecordedLaunch> approved_launches(Kernel kernel, Shape* at, MatmulLaunch run, const std::string& name) {
    const std::vector<Shape> shapes = shapes_of(section("technique").at("shapes_mnk"));
    const Shape s = shapes.front();
    *at = s;
    gpulab::GuardedDeviceArray<float> a(std::size_t(s.m) * s.k), b(std::size_t(s.k) * s.n), c(std::size_t(s.m) * s.n);
    gpulab::fill_fresh(a.data(), a.size(), {1});
    gpulab::fill_fresh(b.data(), b.size(), {2});
    const MatmulLaunch launch = run ? run : launcher(student(), kernel);
    auto launches = gpulab::probe_launches([&] { launch(a.data(), b.data(), c.data(), s.m, s.n, s.k); });
    gpulab::check_student_launch(run ? name + " at " + s.name() : call_text(kernel, s));
    return launches;
}

}  // namespace

gpulab::TimedWork timed_product(Kernel kernel, const Shape& s, const TimedOperands& operands, MatmulLaunch run,
                                const std::string& name) {
    gpulab::TimedWork work;
    work.call = run ? name + " at " + s.name() : call_text(kernel, s);
    auto rng = gpulab::Rng::for_current_test();
    work.seed = rng.seed();
    const bool bt = takes_bt(kernel);
    // The draws of the current sample, shared by renew and check.
    auto draws = std::make_shared<std::pair<gpulab::FreshDraw, gpulab::FreshDraw>>();
    const std::size_t a_size = std::size_t(s.m) * s.k, b_size = std::size_t(s.k) * s.n;
    work.renew = [draws, operands, a_size, b_size](std::uint64_t seed) {
        draws->first.seed = gpulab::fresh_hash(seed, 1);
        draws->second.seed = gpulab::fresh_hash(seed, 2);
        gpulab::fill_fresh(operands.a, a_size, draws->first);
        gpulab::fill_fresh(operands.b, b_size, draws->second);
    };
    const int count = section("speed").at("fresh_checks");
    const double factor = section("correctness").at("tolerance_factor");
    const std::size_t elements = std::size_t(s.m) * s.n;
    const std::vector<std::size_t> corners{0, std::size_t(s.n - 1), elements - s.n, elements - 1};
    work.check = [draws, operands, s, bt, count, factor, elements, corners] {
        const std::vector<std::size_t> cells = gpulab::pick_cells(elements, count, draws->first.seed ^ draws->second.seed, {}, corners);
        const auto expected = [&](std::size_t cell) {
            const std::size_t i = cell / s.n, j = cell % s.n;
            double sum = 0, magnitude = 0;
            for (int p = 0; p < s.k; ++p) {
                const double x = draws->first.at(i * s.k + p);
                const double y = bt ? draws->second.at(j * s.k + p) : draws->second.at(std::size_t(p) * s.n + j);
                sum += x * y;
                magnitude += std::fabs(x * y);
            }
            return gpulab::CellExpectation{sum, matmul_oracle::allowed_error(magnitude, s.k, factor)};
        };
        return gpulab::spot_check_device(operands.c, cells, expected, [&](std::size_t cell) {
            return "C(" + std::to_string(cell / s.n) + ", " + std::to_string(cell % s.n) + ")";
        });
    };
    gpulab::set_compute_floor(work, 2.0 * s.multiply_adds());
    Shape probe;
    work.approved = approved_launches(kernel, &probe, run, name);
    work.approved_at = probe.name() + " (M x N x K)";
    gpulab::name_after_timed_launch(work);  // the kernel's MatchesOracle instance "N<n>" (matmul_test.cpp)
    return work;
}

}  // namespace matmul_grading
