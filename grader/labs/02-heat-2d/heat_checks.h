// Lab 02's Stability tests: the square's runs, made with the student's integrate (or, above the bound, with the
// kernels driven by the grader) for each step kernel, judged by what FTCS theory promises
// (grader/shared/heat/heat_theory.h).
#pragma once

namespace heat_2d_grading {

void check_refuses_unstable_dt();             // Stability.RefusesUnstableDt
void check_maximum_principle(int kernel);     // Kernels/Stability.MaximumPrinciple
void check_conserves_heat(int kernel);        // Kernels/Stability.ConservesHeat
void check_cosine_decay_rate(int kernel);     // Kernels/Stability.CosineDecayRate
void check_blows_up_above_bound(int kernel);  // Kernels/Stability.BlowsUpAboveBound

}  // namespace heat_2d_grading
