// Numbers as grader messages and test names show them.
#pragma once

#include <cmath>
#include <sstream>
#include <string>

namespace gpulab {

// 9 significant digits: enough to tell two floats apart, no more.
inline std::string num(double value) {
    std::ostringstream out;
    out.precision(9);
    out << value;
    return out.str();
}

inline std::string fixed(double value, int digits) {
    std::ostringstream out;
    out.precision(digits);
    out << std::fixed << value;
    return out.str();
}

// A share of 1 as a whole percentage ("86%"); "?" for a share not measured (NaN).
inline std::string pct(double share) { return std::isnan(share) ? "?" : fixed(100 * share, 0) + "%"; }

inline std::string sci(double value, int digits = 2) {
    std::ostringstream out;
    out.precision(digits);
    out << std::scientific << value;
    return out.str();
}

// A number as part of a GoogleTest name, which allows only letters, digits and '_': 0.37 -> "0p37".
inline std::string name_safe(double value, int digits = 2) {
    std::string text = fixed(value, digits);
    for (char& c : text)
        if (c == '.') c = 'p';
        else if (c == '-') c = 'm';
    return text;
}

}  // namespace gpulab
