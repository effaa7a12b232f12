// Compiled into lab 07's expert library only (expert/07-matmul): its table for the roofline report.
#include "api.h"
#include "matmul_expert.h"

namespace {
const MatmulExpertApi table{{GPULAB_EXPERT_OF}, &expert::launch_sgemm};
}

GPULAB_EXPORT_LAB_API(table)
