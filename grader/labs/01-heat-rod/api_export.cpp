// Compiled into every lab 01 solution library (student, reference, planted bugs): exports the
// functions of heat_rod.h as one table the grader loads at run time.
#include "api.h"
#include "heat_rod.h"

namespace {
const HeatRodApi table{{"01-heat-rod"},      &heat_rod::launch_step, &heat_rod::launch_boundary,
                       &heat_rod::choose_dt, &heat_rod::integrate,   &heat_rod::solve};
}

GPULAB_EXPORT_LAB_API(table)
