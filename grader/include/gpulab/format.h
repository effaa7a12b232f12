// Numbers as grader messages show them: the digits a float has, fixed or scientific on request.
#pragma once

#include <cstring>
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

inline std::string sci(double value, int digits = 2) {
    std::ostringstream out;
    out.precision(digits);
    out << std::scientific << value;
    return out.str();
}

// Bitwise equality: "untouched" means the same bits, NaN included.
template <typename T>
bool same_bits(const T& a, const T& b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace gpulab
