// A device array with guard zones on both sides, for handing to student kernels.
//
// The grader poisons the array before every launch (so cells the kernel never wrote are visible)
// and fills the guards with a second pattern, so a write just outside the array is reported with
// its offset instead of silently corrupting a neighbour.
#pragma once

#include "gpulab/device_resources.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gpulab {

// Bit patterns: poison is all ones (a NaN for float and double, 255 for bytes); guards are 0xFE.
constexpr unsigned char kPoisonByte = 0xFF;
constexpr unsigned char kGuardByte = 0xFE;

template <typename T>
bool is_poison(const T& value) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (unsigned char b : bytes)
        if (b != kPoisonByte) return false;
    return true;
}

template <typename T>
T poison_value() {
    T value;
    std::memset(&value, kPoisonByte, sizeof(T));
    return value;
}

// What a guard check found: how many guard cells changed and the offsets of the extreme ones,
// counted from the array (before: -1 is the cell just in front of it; after: 0 is the first cell past its end).
struct GuardReport {
    std::size_t cells_changed_before = 0;
    std::size_t cells_changed_after = 0;
    std::ptrdiff_t farthest_before = 0;
    std::ptrdiff_t farthest_after = 0;
    bool intact() const { return cells_changed_before == 0 && cells_changed_after == 0; }
    std::string describe(const std::string& array_name) const;
};

template <typename T>
class GuardedDeviceArray {
public:
    explicit GuardedDeviceArray(std::size_t count, std::size_t guard_cells = 1024)
        : count_(count), guard_(guard_cells), storage_((count + 2 * guard_cells) * sizeof(T)) {
        GPULAB_CUDA_CHECK(cudaMemset(storage_.get(), kGuardByte, storage_.size()));
        poison();
    }

    T* data() const { return static_cast<T*>(storage_.get()) + guard_; }
    std::size_t size() const { return count_; }

    void poison() { GPULAB_CUDA_CHECK(cudaMemset(data(), kPoisonByte, count_ * sizeof(T))); }

    void upload(const std::vector<T>& host) {
        if (host.size() != count_) throw std::logic_error("GuardedDeviceArray::upload: size mismatch");
        GPULAB_CUDA_CHECK(cudaMemcpy(data(), host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice));
    }

    std::vector<T> download() const {
        std::vector<T> host(count_);
        GPULAB_CUDA_CHECK(cudaMemcpy(host.data(), data(), count_ * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }

    GuardReport check_guards() const {
        std::vector<unsigned char> before(guard_ * sizeof(T)), after(guard_ * sizeof(T));
        const auto* base = static_cast<const unsigned char*>(storage_.get());
        GPULAB_CUDA_CHECK(cudaMemcpy(before.data(), base, before.size(), cudaMemcpyDeviceToHost));
        GPULAB_CUDA_CHECK(cudaMemcpy(after.data(), base + (guard_ + count_) * sizeof(T), after.size(),
                                     cudaMemcpyDeviceToHost));
        GuardReport report;
        for (std::size_t cell = 0; cell < guard_; ++cell) {
            if (!cell_intact(before, cell)) {
                ++report.cells_changed_before;
                const auto offset = std::ptrdiff_t(cell) - std::ptrdiff_t(guard_);
                if (report.cells_changed_before == 1) report.farthest_before = offset;
            }
            if (!cell_intact(after, cell)) {
                ++report.cells_changed_after;
                report.farthest_after = std::ptrdiff_t(cell);
            }
        }
        return report;
    }

private:
    static bool cell_intact(const std::vector<unsigned char>& guard, std::size_t cell) {
        for (std::size_t b = 0; b < sizeof(T); ++b)
            if (guard[cell * sizeof(T) + b] != kGuardByte) return false;
        return true;
    }

    std::size_t count_;
    std::size_t guard_;
    DeviceBytes storage_;
};

}  // namespace gpulab
