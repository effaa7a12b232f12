// Compiled into lab 01's expert library only (expert/01-heat-rod): its table for the roofline report.
#include "api.h"
#include "heat_rod_expert.h"

namespace {
const HeatRodExpertApi table{{GPULAB_EXPERT_OF}, &expert::launch_rod_step};
}

GPULAB_EXPORT_LAB_API(table)
