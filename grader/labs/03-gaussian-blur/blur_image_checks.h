// The host function blur_image: it blurs a photo on the GPU into the image a student can open beside the
// original (BlurImage.BeforeAndAfter; GPULAB_PHOTO picks the student's own photo), and refuses sizes no image
// has before touching the GPU (BlurImage.RefusesBadInput).
#pragma once

namespace gaussian_blur_grading {

void check_before_and_after();
void check_refuses_bad_input();

}  // namespace gaussian_blur_grading
