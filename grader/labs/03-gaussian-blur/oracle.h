// The CPU oracle for lab 03: the handout's blur in exact integer arithmetic, with the grader's own
// weights. Variants with the usual mistakes (other borders, other rounding) help explain a failure.
#pragma once

#include <cstdint>
#include <vector>

namespace gaussian_blur_oracle {

// How a neighbour outside the image is read.
enum class Border {
    clamp,   // the handout's rule: the nearest pixel inside (p(-1) = p(0))
    zero,    // a common mistake: outside pixels count as 0
    mirror,  // reflect about the edge pixel (p(-1) = p(1)); not the rule either
};

// How S (the weighted sum, weights 1 2 1 / 2 4 2 / 1 2 1) becomes a byte.
enum class Rounding {
    half_up,   // the handout's rule: (S + 8) >> 4
    truncate,  // a common mistake: S >> 4
    half_even, // rintf(S / 16.0f): ties go to the even neighbour
};

// The 3x3 Gaussian of every channel of every pixel of an interleaved width x height x channels image.
std::vector<std::uint8_t> blur(const std::vector<std::uint8_t>& in, int width, int height, int channels,
                               Border border = Border::clamp, Rounding rounding = Rounding::half_up);

}  // namespace gaussian_blur_oracle
