// Compiled into lab 02's expert library only (expert/02-heat-2d): its table for the roofline report.
#include "api.h"
#include "heat_2d_expert.h"

namespace {
const Heat2dExpertApi table{{GPULAB_EXPERT_OF}, &expert::launch_heat2d_step};
}

GPULAB_EXPORT_LAB_API(table)
