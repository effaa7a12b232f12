#include "gpulab/cuda_check.h"

#include "gpulab/guarded_array.h"
#include "gpulab/launch_recorder.h"

#include <sstream>

namespace gpulab {

namespace {

// In CPU execution mode the runtime knows why it stopped a kernel (a divergent barrier, an access past the
// end of a buffer and by which thread, a device assert, a stack overflow): the student must read it in the
// grade, not only in the log. Empty on a GPU.
std::string cpu_mode_reason(cudaError_t status) {
#ifdef GPULAB_CPU_MODE
    if (status == cudaSuccess) return "";
    const std::string detail = gpulab::cpu::last_error_detail();
    if (detail.empty()) return "";
    return " CPU execution mode stopped it: " + detail + ".";
#else
    (void)status;
    return "";
#endif
}

}  // namespace

std::string explain_cuda_error(cudaError_t status) {
    switch (status) {
        case cudaErrorIllegalAddress:
            return "a kernel read or wrote memory outside the arrays it was given (check the bounds test "
                   "that guards every access)";
        case cudaErrorInvalidConfiguration:
            return "the launch configuration is invalid: a grid or block dimension is 0, or a block has "
                   "more than 1024 threads";
        case cudaErrorLaunchOutOfResources:
            return "the block asks for more registers or shared memory than one multiprocessor has";
        case cudaErrorMisalignedAddress:
            return "a kernel accessed memory through a misaligned pointer";
        case cudaErrorLaunchFailure:
#ifdef GPULAB_CPU_MODE
            return "the kernel was stopped while it ran (see the reason above)";
#else
            return "the kernel crashed on the GPU";
#endif
        case cudaErrorInvalidValue:
            return "an argument is invalid; for a kernel launch, is a grid or block dimension 0 (a block count "
                   "rounded down to nothing for a small array)?";
        case cudaErrorNoDevice:
            return "there is no CUDA-capable GPU on this machine";
        default:
            return "";
    }
}

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
    std::ostringstream what;
    what << "CUDA error " << cudaGetErrorName(status) << " (" << cudaGetErrorString(status) << ") from "
         << call << " at " << file << ":" << line << "." << cpu_mode_reason(status);
    const std::string hint = explain_cuda_error(status);
    if (!hint.empty()) what << " Likely cause: " << hint << ".";
    throw CudaError(status, what.str());
}

bool is_sticky_cuda_error(cudaError_t status) {
    switch (status) {
        case cudaErrorIllegalAddress:
        case cudaErrorLaunchFailure:
        case cudaErrorMisalignedAddress:
        case cudaErrorIllegalInstruction:
        case cudaErrorHardwareStackError:
        case cudaErrorInvalidAddressSpace:
        case cudaErrorInvalidPc:
        case cudaErrorLaunchTimeout:
        case cudaErrorAssert:
        case cudaErrorECCUncorrectable:
            return true;
        default:
            return false;
    }
}

std::string GuardReport::describe(const std::string& array_name) const {
    std::ostringstream out;
    if (cells_changed_before)
        out << "the kernel wrote " << cells_changed_before << " cell(s) in front of " << array_name
            << " (as far as index " << farthest_before << "). ";
    if (cells_changed_after)
        out << "the kernel wrote " << cells_changed_after << " cell(s) past the end of " << array_name
            << " (as far as " << farthest_after + 1 << " cell(s) past it). ";
    out << "Every thread must check its index against the array bounds before it writes.";
    return out.str();
}

}  // namespace gpulab

namespace gpulab {

void check_student_launch(const std::string& what) {
    const auto fail = [&](cudaError_t status, const char* when) {
        std::string message = what + " " + when + ": " + cudaGetErrorName(status) + " (" +
                              cudaGetErrorString(status) + ")." + cpu_mode_reason(status);
        const std::string rejected = take_rejected_launch();
        const std::string hint = explain_cuda_error(status);
        if (!rejected.empty()) message += " The launch: " + rejected + ".";
        else if (!hint.empty()) message += " Likely cause: " + hint + ".";
        throw CudaError(status, message);
    };
    if (const cudaError_t status = cudaGetLastError(); status != cudaSuccess) fail(status, "could not launch");
    if (const cudaError_t status = cudaDeviceSynchronize(); status != cudaSuccess) fail(status, "failed while running");
}

}  // namespace gpulab
