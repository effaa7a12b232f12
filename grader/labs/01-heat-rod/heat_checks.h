// Lab 01's Stability tests: the rod's runs, made with the student's integrate (or, above the bound, with the
// kernels driven by the grader), judged by what FTCS theory promises (grader/shared/heat/heat_theory.h).
#pragma once

namespace heat_rod_grading {

void check_refuses_unstable_dt();   // Stability.RefusesUnstableDt
void check_maximum_principle();     // Stability.MaximumPrinciple
void check_conserves_heat();        // Stability.ConservesHeat
void check_cosine_decay_rate();     // Stability.CosineDecayRate
void check_blows_up_above_bound();  // Stability.BlowsUpAboveBound

}  // namespace heat_rod_grading
