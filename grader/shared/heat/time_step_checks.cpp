#include "time_step_checks.h"

#include "gpulab/compare.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace heat_grading {

using gpulab::fixed;
using gpulab::Json;

void check_chosen_dt(const Dimension& dim, const Json& stability, const std::string& spacing,
                     const std::function<double(double k, double h, double tmax)>& choose_dt) {
    const double bound = dim.bound(), min_r = stability.at("min_r");
    const std::string bound_text = dim.bound_text() + " (the " + std::to_string(dim.d) + "D bound)";
    double largest_r = 0;
    std::ostringstream problems;
    for (const Json& item : stability.at("choose_dt_cases")) {
        const double k = item[0], h = item[1], tmax = item[2];
        const double dt = choose_dt(k, h, tmax);
        const double r = k * dt / (h * h);
        const double steps = tmax / dt;
        largest_r = std::max(largest_r, r);
        std::ostringstream where;
        where << "choose_dt(k=" << k << ", " << spacing << "=" << h << ", tmax=" << tmax << ") = " << dt
              << " gives r = " << r;
        if (!(dt > 0) || !std::isfinite(dt)) {
            problems << where.str() << ": dt must be a positive number.\n";
        } else if (r > bound + 1e-12) {
            problems << where.str() << " > " << bound_text << ": unstable.";
            if (r > 1e3)
                problems << " Is dt upside down? dt = r*" << spacing << "^2/k, not r/(k*" << spacing << "^2).";
            else
                problems << dim.chosen_dt_hint(r);
            problems << "\n";
        } else if (r < min_r) {
            problems << where.str() << " < " << min_r << ": stable but needlessly small (the run takes "
                     << fixed(bound / r, 2) << " times as many steps as it needs).\n";
        } else if (std::fabs(steps - std::round(steps)) > 1e-6 * steps) {
            problems << where.str() << ", but tmax/dt = " << fixed(steps, 6)
                     << " is not a whole number of steps: the run would miss tmax.\n";
        }
    }
    gpulab::record_figure("largest r " + fixed(largest_r, 6), fixed(min_r, 2) + " <= r <= " + dim.bound_text() + ", whole steps");
    GPULAB_EXPECT(problems.str().empty()) << problems.str();
}

std::string uneven_step_count_hint(double tmax, double exact_steps, int expected_steps, const std::string& limit) {
    // tmax/dt_max is a whole number for some cases and not for others ("uneven"): there the step
    // count must be rounded up (a smaller dt), never down (a dt above the stable limit).
    if (std::fabs(exact_steps - std::round(exact_steps)) <= 1e-6) return "";
    std::string hint = " Here tmax / (" + limit + ") = " + fixed(exact_steps, 2) + " is not a whole number, so n = ceil(" +
                       fixed(exact_steps, 2) + ") = " + std::to_string(expected_steps) +
                       " steps of dt = tmax / n (rounding n down would make dt larger than the stable limit).";
    const double recovered = tmax / (tmax / expected_steps);  // what solve sees as tmax / dt
    if (recovered < expected_steps) {
        hint += " And tmax / dt comes out as " + std::to_string(expected_steps) + " - " + gpulab::sci(expected_steps - recovered) +
                " in floating point: recover n with std::lround, not with a cast to int or floor, which drop a step.";
    }
    return hint;
}

void check_refuses_unstable_dt(const Dimension& dim, const std::vector<float>& f, const Json& ratios, double dt_per_r,
                               const std::string& call, const std::function<void(double dt)>& integrate) {
    const std::vector<float> before = f;
    for (double r : ratios) {
        const double dt = r * dt_per_r;
        try {
            integrate(dt);
            ADD_FAILURE() << call << " accepted dt = " << dt << " (r = " << fixed(r, 2) << " > " << dim.bound_text()
                          << ") and ran." << dim.accepted_dt_hint(r)
                          << " An unstable request must throw std::invalid_argument before anything runs.";
        } catch (const std::invalid_argument& refused) {
            GPULAB_EXPECT(std::strlen(refused.what()) > 0) << "the refusal should say why (give the value of r)";
            gpulab::record_figure(std::string("refused: ") + refused.what(), "std::invalid_argument");
        } catch (const std::exception& other) {
            ADD_FAILURE() << "integrate with r = " << fixed(r, 2)
                          << " threw something other than std::invalid_argument: " << other.what();
        }
        GPULAB_EXPECT(std::equal(f.begin(), f.end(), before.begin(), gpulab::same_bits<float>))
            << "integrate changed f although the request (r = " << fixed(r, 2) << ") was unstable.";
    }
}

}  // namespace heat_grading
