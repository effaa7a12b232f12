// CPU execution mode's harness has no marker kernel: its profile always starts the lab's GPU grader as the child
// (gpu_profile.h), and the child's workload is registered only there.
#include <stdexcept>

namespace gpulab {

void launch_gpu_profile_marker(int) {
    throw std::logic_error("the GPU profile's workload runs in a GPU grader only");
}

}  // namespace gpulab
