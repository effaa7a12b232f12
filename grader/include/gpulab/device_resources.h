// RAII owners for the CUDA resources the grader uses, so a failing test never leaks GPU memory
// into the next one.
#pragma once

#include "gpulab/cuda_check.h"

#include <cstddef>
#include <utility>

namespace gpulab {

class DeviceEvent {
public:
    DeviceEvent() { GPULAB_CUDA_CHECK(cudaEventCreate(&event_)); }
    ~DeviceEvent() { GPULAB_CUDA_CHECK_NOTHROW(cudaEventDestroy(event_)); }
    DeviceEvent(const DeviceEvent&) = delete;
    DeviceEvent& operator=(const DeviceEvent&) = delete;

    void record(cudaStream_t stream = nullptr) { GPULAB_CUDA_CHECK(cudaEventRecord(event_, stream)); }
    void synchronize() { GPULAB_CUDA_CHECK(cudaEventSynchronize(event_)); }
    // Milliseconds from `start` to this event; both must have completed.
    float ms_since(const DeviceEvent& start) const {
        float ms = 0;
        GPULAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
        return ms;
    }

private:
    cudaEvent_t event_ = nullptr;
};

class DeviceStream {
public:
    DeviceStream() { GPULAB_CUDA_CHECK(cudaStreamCreate(&stream_)); }
    ~DeviceStream() { GPULAB_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream_)); }
    DeviceStream(const DeviceStream&) = delete;
    DeviceStream& operator=(const DeviceStream&) = delete;

    cudaStream_t get() const { return stream_; }
    void synchronize() { GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

private:
    cudaStream_t stream_ = nullptr;
};

// Raw device bytes, freed on scope exit.
class DeviceBytes {
public:
    DeviceBytes() = default;
    explicit DeviceBytes(std::size_t bytes) : bytes_(bytes) {
        if (bytes_ > 0) GPULAB_CUDA_CHECK(cudaMalloc(&ptr_, bytes_));
    }
    ~DeviceBytes() {
        if (ptr_) GPULAB_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
    }
    DeviceBytes(DeviceBytes&& other) noexcept
        : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
    DeviceBytes& operator=(DeviceBytes&& other) noexcept {
        std::swap(ptr_, other.ptr_);
        std::swap(bytes_, other.bytes_);
        return *this;
    }
    DeviceBytes(const DeviceBytes&) = delete;
    DeviceBytes& operator=(const DeviceBytes&) = delete;

    void* get() const { return ptr_; }
    std::size_t size() const { return bytes_; }

private:
    void* ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

}  // namespace gpulab
