#include "gpulab/time_step_checks.h"

#include "gpulab/compare.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace gpulab {

ChosenDtCheck check_chosen_dt(const Json& cases, const std::string& spacing, double bound, const std::string& bound_text,
                              double min_r,
                              const std::function<double(double, double, double)>& choose_dt,
                              const std::function<std::string(double)>& hint) {
    ChosenDtCheck check;
    std::ostringstream problems;
    for (const Json& item : cases) {
        const double k = item[0], h = item[1], tmax = item[2];
        const double dt = choose_dt(k, h, tmax);
        const double r = k * dt / (h * h);
        const double steps = tmax / dt;
        check.largest_r = std::max(check.largest_r, r);
        std::ostringstream where;
        where << "choose_dt(k=" << k << ", " << spacing << "=" << h << ", tmax=" << tmax << ") = " << dt
              << " gives r = " << r;
        if (!(dt > 0) || !std::isfinite(dt)) {
            problems << where.str() << ": dt must be a positive number.\n";
        } else if (r > bound + 1e-12) {
            problems << where.str() << " > " << bound_text << ": unstable.";
            if (r > 1e3)
                problems << " Is dt upside down? dt = r*" << spacing << "^2/k, not r/(k*" << spacing << "^2).";
            else if (hint) problems << hint(r);
            problems << "\n";
        } else if (r < min_r) {
            problems << where.str() << " < " << min_r << ": stable but needlessly small (the run takes "
                     << fixed(bound / r, 2) << " times as many steps as it needs).\n";
        } else if (std::fabs(steps - std::round(steps)) > 1e-6 * steps) {
            problems << where.str() << ", but tmax/dt = " << fixed(steps, 6)
                     << " is not a whole number of steps: the run would miss tmax.\n";
        }
    }
    check.problems = problems.str();
    return check;
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
        hint += " And tmax / dt comes out as " + std::to_string(expected_steps) + " - " + sci(expected_steps - recovered) +
                " in floating point: recover n with std::lround, not with a cast to int or floor, which drop a step.";
    }
    return hint;
}

void expect_refuses_unstable_dt(const std::vector<float>& f, const Json& ratios, double dt_per_r, const std::string& call,
                                const std::string& bound_text, const std::function<void(double dt)>& integrate,
                                const std::function<std::string(double)>& hint) {
    const std::vector<float> before = f;
    for (double r : ratios) {
        const double dt = r * dt_per_r;
        try {
            integrate(dt);
            ADD_FAILURE() << call << " accepted dt = " << dt << " (r = " << fixed(r, 2) << " > " << bound_text
                          << ") and ran." << (hint ? hint(r) : std::string())
                          << " An unstable request must throw std::invalid_argument before anything runs.";
        } catch (const std::invalid_argument& refused) {
            GPULAB_EXPECT(std::strlen(refused.what()) > 0) << "the refusal should say why (give the value of r)";
            record_figure(std::string("refused: ") + refused.what(), "std::invalid_argument");
        } catch (const std::exception& other) {
            ADD_FAILURE() << "integrate with r = " << fixed(r, 2)
                          << " threw something other than std::invalid_argument: " << other.what();
        }
        GPULAB_EXPECT(std::equal(f.begin(), f.end(), before.begin(), same_bits<float>))
            << "integrate changed f although the request (r = " << fixed(r, 2) << ") was unstable.";
    }
}

}  // namespace gpulab
