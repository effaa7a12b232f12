// Whether a timed launch is the launch that was checked at the timed size, done again.
//
// A speed test checks the output of the launch function's first launch at the timed size, then times it. A
// launch function that flips a flag by its number of calls or by a clock (an `int mode` argument that becomes 1
// from the 7th call, a __device__ flag it sets with cudaMemcpyToSymbol) passes that check and is timed doing other
// work. So every timed launch must run the checked launch's kernels in the same order, with the same grid, block,
// shared memory and arguments, and copy the same bytes to the same __constant__ and __device__ variables at the
// same points among them.
//
// Arguments that are addresses in device memory are compared only as such: whether a buffer is the same one says
// nothing about the work (a launch function may rotate scratch buffers of its own between calls), and a kernel that
// reads its mode from device memory needs no changed argument at all; what it did is for the timed samples' own
// counters to show. Every other argument is compared byte for byte, whatever its declared type: a flag passed as
// a pointer that points at no device memory is a value.
#pragma once

#include "gpulab/launch_recorder.h"

#include <cstddef>
#include <string>
#include <vector>

namespace gpulab {

// The launch checked at the timed size, as first_launch_under_deadline recorded it, and its call for messages
// ("launch_step_tiled at 8192x8192").
struct CheckedLaunch {
    const std::vector<RecordedLaunch>& launches;
    const std::vector<RecordedCall>& calls;
    const std::string& call;
};

// "" when the timed launch (`launches` with their arguments classified, and `calls`) repeats `checked`; else what
// differs, with both lists and the rule. Arguments are compared where both sides recorded them.
std::string differs_from_checked(const CheckedLaunch& checked, const std::vector<RecordedLaunch>& launches,
                                 const std::vector<RecordedCall>& calls);

// A launch as a call, with its parameters' types from the kernel's demangled signature (kernel_name_of) where it
// has them: "ftcs_tiled(device pointer, device pointer, 8192, 8192, 0.2, 1)". The arguments at `marked` are
// starred ("*1*").
std::string arguments_text(const std::string& signature, const RecordedLaunch& launch,
                           const std::vector<std::size_t>& marked = {});

// The kernel a demangled signature names: "void ns::k<float>(float const*, int)" -> "ns::k<float>". A name without a
// parameter list (CPU execution mode's "ftcs_tiled") is all kernel. Its parameter types: kernel_resources.h's
// parameter_types.
std::string kernel_of_signature(const std::string& signature);

}  // namespace gpulab
