#include "gpulab/fresh_inputs.h"

#include "gpulab/cuda_check.h"
#include "gpulab/device_resources.h"

namespace gpulab {
namespace {

template <typename T>
__global__ void fill_values(T* d, std::size_t n, FreshDraw draw) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        d[i] = T(draw.at(i));
}

__global__ void fill_bytes(std::uint8_t* d, std::size_t n, FreshDraw draw) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        d[i] = draw.byte_at(i);
}

template <typename T>
__global__ void gather(const T* d, const std::size_t* cells, std::size_t count, double* out) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < count) out[i] = double(d[cells[i]]);
}

constexpr int kFillBlocks = 4096, kFillThreads = 256;

template <typename T>
std::vector<double> gather_on_device(const T* d, const std::vector<std::size_t>& cells) {
    std::vector<double> values(cells.size());
    if (cells.empty()) return values;
    DeviceBytes d_cells(cells.size() * sizeof(std::size_t)), d_values(cells.size() * sizeof(double));
    GPULAB_CUDA_CHECK(cudaMemcpy(d_cells.get(), cells.data(), d_cells.size(), cudaMemcpyHostToDevice));
    const unsigned blocks = unsigned((cells.size() + 255) / 256);
    gather<<<blocks, 256>>>(d, static_cast<const std::size_t*>(d_cells.get()), cells.size(),
                            static_cast<double*>(d_values.get()));
    GPULAB_CUDA_CHECK(cudaGetLastError());
    GPULAB_CUDA_CHECK(cudaMemcpy(values.data(), d_values.get(), d_values.size(), cudaMemcpyDeviceToHost));
    return values;
}

}  // namespace

void fill_fresh(float* d, std::size_t n, const FreshDraw& draw) {
    fill_values<<<kFillBlocks, kFillThreads>>>(d, n, draw);
    GPULAB_CUDA_CHECK(cudaGetLastError());
}
void fill_fresh(double* d, std::size_t n, const FreshDraw& draw) {
    fill_values<<<kFillBlocks, kFillThreads>>>(d, n, draw);
    GPULAB_CUDA_CHECK(cudaGetLastError());
}
void fill_fresh(std::uint8_t* d, std::size_t n, const FreshDraw& draw) {
    fill_bytes<<<kFillBlocks, kFillThreads>>>(d, n, draw);
    GPULAB_CUDA_CHECK(cudaGetLastError());
}

std::vector<double> gather_cells(const float* d, const std::vector<std::size_t>& cells) { return gather_on_device(d, cells); }
std::vector<double> gather_cells(const double* d, const std::vector<std::size_t>& cells) { return gather_on_device(d, cells); }
std::vector<double> gather_cells(const std::uint8_t* d, const std::vector<std::size_t>& cells) { return gather_on_device(d, cells); }

}  // namespace gpulab
