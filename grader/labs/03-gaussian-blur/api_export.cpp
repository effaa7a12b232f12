// Compiled into every lab 03 solution library (student, reference, planted bugs): exports the
// functions of gaussian_blur.h as one table the grader loads at run time.
#include "api.h"
#include "gaussian_blur.h"

namespace {
const GaussianBlurApi table{{"03-gaussian-blur"},
                            &gaussian_blur::launch_blur_naive,
                            &gaussian_blur::launch_blur_tiled,
                            &gaussian_blur::blur_image};
}

GPULAB_EXPORT_LAB_API(table)
