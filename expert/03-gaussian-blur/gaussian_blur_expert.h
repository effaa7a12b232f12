// Lab 03's expert kernel (instructor-only, never shipped to students): the fastest honest 3x3 Gaussian
// blur we can write, timed on the roofline report as "what this GPU can do". Not a bar for students' points.
#pragma once

#include <cstdint>

namespace expert {

// Same contract as gaussian_blur::launch_blur_naive (labs/03-gaussian-blur/gaussian_blur.h): packed,
// interleaved width x height x channels bytes; every byte of d_out is the 1 2 1 / 2 4 2 / 1 2 1 sum S of
// its channel under clamp-to-edge, out = (S + 8) >> 4 (bit-exact). width, height, channels >= 1.
// Reads only d_in, writes every byte of d_out and nothing else. Launches on the default stream and
// returns without synchronizing; allocates nothing.
void launch_blur(const std::uint8_t* d_in, std::uint8_t* d_out, int width, int height, int channels);

}  // namespace expert
