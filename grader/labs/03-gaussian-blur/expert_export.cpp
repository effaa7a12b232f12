// Compiled into lab 03's expert library only (expert/03-gaussian-blur): its table for the roofline report.
#include "api.h"
#include "gaussian_blur_expert.h"

namespace {
const GaussianBlurExpertApi table{{GPULAB_EXPERT_OF}, &expert::launch_blur};
}

GPULAB_EXPORT_LAB_API(table)
