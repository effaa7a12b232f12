// How a GoogleTest name maps to the id a lab's config gives points to.
//
// "Sizes/Step.MatchesOracle/M33_r0p25" (instantiation prefix, suite, test, parameter) and
// "Step.MatchesOracle" both have the id "Step.MatchesOracle": every instance of a parameterized
// test shares its id's points.
#pragma once

#include <string>

namespace gpulab {

inline std::string test_id_of(const std::string& full_name) {
    const auto dot = full_name.find('.');
    if (dot == std::string::npos) return full_name;
    std::string suite = full_name.substr(0, dot);
    std::string test = full_name.substr(dot + 1);
    if (const auto slash = suite.rfind('/'); slash != std::string::npos) suite = suite.substr(slash + 1);
    if (const auto slash = test.find('/'); slash != std::string::npos) test = test.substr(0, slash);
    return suite + "." + test;
}

}  // namespace gpulab
