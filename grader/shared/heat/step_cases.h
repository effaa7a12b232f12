// What a heat lab's step-kernel test runs on: every grid lab.json's "step" section lists, with every ratio r it
// lists (a kernel right at one r and wrong at another weights its neighbours wrongly), and an input the step
// visibly changes.
#pragma once

#include "gpulab/lab_config.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace heat_grading {

template <typename Grid>
struct StepCase {
    Grid grid;  // M cells (the rod), a Grid (the square)
    double r;
};

// step.sizes x step.ratios; `grid_of` reads one entry of step.sizes.
template <typename Grid, typename GridOf>
std::vector<StepCase<Grid>> step_cases(const gpulab::Json& step, GridOf grid_of) {
    std::vector<StepCase<Grid>> cases;
    for (const gpulab::Json& size : step.at("sizes"))
        for (double r : step.at("ratios")) cases.push_back({grid_of(size), r});
    return cases;
}

// Draws inputs until the step changes some interior cell by more than `bar` (far above the tolerance), or a
// kernel that copies its input would pass. On a tiny grid a random draw can be nearly flat (about 1 in 70 with one
// interior cell), so it draws again: deterministic for a given seed, never a flake. `stepped(in)` is the oracle's
// step on in's interior cells, `interior(in)` those cells of `in`, in the same order. Empty when 1000 draws were all
// flat (a grader error).
template <typename Draw, typename Stepped, typename Interior>
std::vector<float> draw_visibly_changed(Draw draw, Stepped stepped, Interior interior, double bar) {
    for (int attempt = 0; attempt < 1000; ++attempt) {
        std::vector<float> in = draw();
        const std::vector<double> after = stepped(in);
        const std::vector<float> before = interior(in);
        double largest = 0;
        for (std::size_t c = 0; c < after.size(); ++c) largest = std::max(largest, std::fabs(after[c] - before[c]));
        if (largest > bar) return in;
    }
    return {};
}

}  // namespace heat_grading
