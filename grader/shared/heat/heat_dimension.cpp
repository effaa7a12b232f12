#include "heat_dimension.h"

#include "gpulab/format.h"

#include <cmath>

namespace heat_grading {
namespace {

const char* const kCount[] = {"zero", "one", "two", "three", "four", "five", "six"};

}  // namespace

std::string Dimension::bound_text() const { return "1/" + std::to_string(2 * d); }

const char* Dimension::domain() const { return d == 1 ? "rod" : d == 2 ? "square" : "box"; }

std::string Dimension::ratio_text(double r) const {
    return std::fabs(r - bound()) < 1e-12 ? bound_text() : gpulab::fixed(r, 3);
}

std::string Dimension::weights_text() const {
    return "(weights 1 - " + std::to_string(2 * d) + "r and " + kCount[2 * d] + " times r, none negative)";
}

std::string Dimension::chosen_dt_hint(double r) const {
    if (d == 1) return "";
    const Dimension fewer{d - 1};
    if (r > fewer.bound() + 1e-12) return "";
    return " (" + fewer.bound_text() + " is the " + fewer.domain() + "'s bound; a " + domain() + " has " + kCount[d] +
           " directions to lose heat in.)";
}

std::string Dimension::accepted_dt_hint(double r) const {
    if (d == 1) return "";
    const Dimension fewer{d - 1};
    if (r > fewer.bound()) return "";
    return " (Checking against the " + std::string(fewer.domain()) + "'s " + fewer.bound_text() + "? In " +
           std::to_string(d) + "D the bound is " + bound_text() + ".)";
}

}  // namespace heat_grading
