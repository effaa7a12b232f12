// The one fact the heat checks need about a lab's domain: how many directions heat flows in. The rod (1),
// the square (2) and the box (3) differ in the FTCS stability bound r <= 1/(2d), in the weights of a step
// (1 - 2d r for the cell, r for each of its 2d neighbours), and in the bound a student who kept the last
// lab's may have used: every message about the bound is worded from this.
#pragma once

#include <string>

namespace heat_grading {

struct Dimension {
    int d = 1;

    double bound() const { return 0.5 / d; }
    std::string bound_text() const;    // "1/2", "1/4", "1/6"
    const char* domain() const;        // "rod", "square", "box"
    int neighbours() const { return 2 * d; }
    // "1/4" for r at the bound, else r with three decimals: how a message names the r of a run.
    std::string ratio_text(double r) const;
    // "(weights 1 - 4r and four times r, none negative)"
    std::string weights_text() const;
    // For an unstable r that one dimension fewer would allow: the sentence that names the mistake, else "".
    std::string chosen_dt_hint(double r) const;  // " (1/2 is the rod's bound; a square has two directions ...)"
    std::string accepted_dt_hint(double r) const;  // " (Checking against the rod's 1/2? In 2D the bound is 1/4.)"
};

}  // namespace heat_grading
