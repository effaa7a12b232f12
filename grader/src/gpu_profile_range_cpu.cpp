// CPU execution mode's harness has no profile ranges: its profile always starts the lab's GPU grader as the child
// (gpu_profile.h), and the child's workload is registered only there.
#include <cstddef>
#include <stdexcept>

namespace gpulab {

void push_gpu_profile_range(std::size_t) {
    throw std::logic_error("the GPU profile's workload runs in a GPU grader only");
}

void pop_gpu_profile_range() {}

}  // namespace gpulab
