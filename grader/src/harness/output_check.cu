#include "gpulab/output_check.h"

#include "gpulab/cuda_check.h"
#include "gpulab/device_resources.h"

namespace gpulab {
namespace {

__global__ void count_differences(const unsigned char* a, const unsigned char* b, std::size_t bytes,
                                  unsigned long long* count) {
    unsigned long long mine = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < bytes;
         i += std::size_t(gridDim.x) * blockDim.x)
        mine += a[i] != b[i];
    if (mine) atomicAdd(count, mine);
}

}  // namespace

std::size_t count_differing_bytes(const void* a, const void* b, std::size_t bytes) {
    DeviceBytes count(sizeof(unsigned long long));
    GPULAB_CUDA_CHECK(cudaMemset(count.get(), 0, sizeof(unsigned long long)));
    count_differences<<<1024, 256>>>(static_cast<const unsigned char*>(a), static_cast<const unsigned char*>(b), bytes,
                                     static_cast<unsigned long long*>(count.get()));
    GPULAB_CUDA_CHECK(cudaGetLastError());
    unsigned long long differing = 0;
    GPULAB_CUDA_CHECK(cudaMemcpy(&differing, count.get(), sizeof differing, cudaMemcpyDeviceToHost));
    return std::size_t(differing);
}

}  // namespace gpulab
