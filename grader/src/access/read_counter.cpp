#include "gpulab/read_counter.h"

#include "gpulab/cuda_check.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#ifdef GPULAB_CPU_MODE
#include <gpulab_cpu/lazy_memory.h>
#include <gpulab_cpu/read_count.h>
#endif

namespace gpulab {

bool read_counting_available(std::string* why) {
#ifdef GPULAB_CPU_MODE
    return gpulab::cpu::read_counting_supported(why);
#else
    if (why)
        *why = "reads are counted in CPU execution mode (gpulab-grade runs this test with the CPU-mode grader, "
               "also on a GPU machine); this grader runs kernels on the GPU";
    return false;
#endif
}

ReadCount count_device_reads(const void* begin, std::size_t bytes, const std::function<void()>& work) {
    ReadCount result;
#ifdef GPULAB_CPU_MODE
    const gpulab::cpu::ReadCount c = gpulab::cpu::count_device_reads(begin, bytes, work);
    result.available = c.supported;
    result.why = c.why;
    result.reads = c.reads;
    result.writes = c.writes;
    result.bytes_read = c.bytes_read;
    result.bytes_written = c.bytes_written;
    result.host_bytes_read = c.host_bytes_read;
    result.launches = c.launches;
#else
    (void)begin;
    (void)bytes;
    (void)work;
    read_counting_available(&result.why);
#endif
    return result;
}

AccessCount count_device_accesses(const std::vector<CountedRange>& ranges, const std::function<void()>& work,
                                  const BlockSample* sample, const SharedCounting* shared,
                                  unsigned long long max_accesses) {
    AccessCount result;
#ifdef GPULAB_CPU_MODE
    std::vector<gpulab::cpu::CountedRange> cpu_ranges;
    for (const CountedRange& r : ranges) cpu_ranges.push_back(gpulab::cpu::CountedRange{r.begin, r.bytes, r.page_every, r.page_seed});
    gpulab::cpu::BlockSample cpu_sample;
    if (sample) cpu_sample = gpulab::cpu::BlockSample{sample->count, sample->seed, sample->interior_run, sample->block_accesses};
    gpulab::cpu::CountOptions options;
    options.max_accesses = max_accesses;
    if (shared) {
        options.shared = shared->on, options.shared_faults_per_block = shared->faults_per_block;
        options.shared_blocks_per_class = shared->blocks_per_class;
        options.shared_least_class_share = shared->least_class_share;
    }
    gpulab::cpu::AccessCount c =
        gpulab::cpu::count_device_accesses(cpu_ranges, work, sample ? &cpu_sample : nullptr, &options);
    auto convert_shared = [](const gpulab::cpu::SharedCount& sc) {
        return SharedCount{sc.counted,         sc.loads,           sc.stores,          sc.bytes_read,
                           sc.bytes_written,   sc.load_requests,   sc.load_wavefronts, sc.load_conflicts,
                           sc.store_requests,  sc.store_wavefronts, sc.store_conflicts, sc.blocks_capped,
                           sc.lane_requests,   sc.lanes,           sc.idle_requests};
    };
    result.shared = convert_shared(c.shared);
    auto convert = [](const gpulab::cpu::RangeCount& r) {
        return RangeCount{r.loads,         r.stores,         r.bytes_read,     r.bytes_written, r.host_bytes_read,
                          r.load_requests, r.load_sectors,   r.store_requests, r.store_sectors, r.load_lanes,
                          r.store_lanes,   r.idle_requests};
    };
    result.available = c.supported;
    result.why = c.why;
    result.stopped_early = c.stopped_early;
    result.accesses = c.accesses;
    result.blocks_cut = c.blocks_cut;
    for (const auto& r : c.ranges) result.ranges.push_back(convert(r));
    result.launches = c.launches;
    result.blocks_run = c.blocks_run;
    for (const gpulab::cpu::InstructionCount& i : c.instructions)
        result.instructions.push_back({i.ip, i.load_requests, i.load_sectors, i.load_lanes, i.store_requests,
                                       i.store_sectors, i.store_lanes, i.shared_load_requests, i.shared_load_conflicts,
                                       i.shared_store_requests, i.shared_store_conflicts, i.idle_requests});
    for (const auto& l : c.launch_blocks) {
        CountedLaunch out;
        out.kernel = l.kernel;
        out.grid = l.grid;
        out.block = l.block;
        out.grid_blocks = l.grid_blocks;
        out.sampled = l.sampled;
        for (const uint3& b : l.blocks) out.blocks.push_back(dim3(b.x, b.y, b.z));
        for (const auto& r : l.block_counts) out.block_counts.push_back(convert(r));
        for (const auto& r : l.block_shared) out.block_shared.push_back(convert_shared(r));
        out.range_count = l.range_count;
        result.counted_launches.push_back(std::move(out));
    }
#else
    (void)ranges;
    (void)work;
    (void)sample;
    (void)shared;
    (void)max_accesses;
    read_counting_available(&result.why);
#endif
    return result;
}

LazyDeviceBuffer::LazyDeviceBuffer(std::size_t bytes, Filler fill) : bytes_(bytes) {
    if (bytes == 0) return;
#ifdef GPULAB_CPU_MODE
    GPULAB_CUDA_CHECK(gpulab::cpu::malloc_lazy(&ptr_, bytes, std::move(fill)));
#else
    GPULAB_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
    try {
        // What CPU execution mode's lazy pages would hold, written at once through a host buffer.
        const std::size_t chunk_bytes = std::min<std::size_t>(bytes, std::size_t(64) << 20);
        std::vector<unsigned char> chunk(chunk_bytes);
        for (std::size_t offset = 0; offset < bytes; offset += chunk_bytes) {
            const std::size_t len = std::min(chunk_bytes, bytes - offset);
            if (fill) {
                fill(chunk.data(), offset, len);
            } else {
                const std::uint32_t word = 0xFFFADBADu;  // in the phase it has at `offset` of the buffer
                unsigned char w[4];
                std::memcpy(w, &word, 4);
                for (std::size_t i = 0; i < len; ++i) chunk[i] = w[(offset + i) & 3];
            }
            GPULAB_CUDA_CHECK(cudaMemcpy(static_cast<unsigned char*>(ptr_) + offset, chunk.data(), len,
                                         cudaMemcpyHostToDevice));
        }
    } catch (...) {
        GPULAB_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
        throw;
    }
#endif
}

LazyDeviceBuffer::~LazyDeviceBuffer() {
    if (ptr_) GPULAB_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
}

bool LazyDeviceBuffer::lazy() const {
#ifdef GPULAB_CPU_MODE
    return true;
#else
    return false;
#endif
}

std::size_t LazyDeviceBuffer::touched_bytes() const {
#ifdef GPULAB_CPU_MODE
    gpulab::cpu::LazyUsage usage;
    return ptr_ && gpulab::cpu::lazy_usage(ptr_, &usage) ? usage.touched_bytes : 0;
#else
    return bytes_;
#endif
}

TileUse classify_tile_use(double reads_per_output, double naive) {
    const double slack = 0.01 * naive;  // a few halo reads either way
    if (reads_per_output > naive + slack) return TileUse::beyond_naive;
    if (reads_per_output >= naive - slack) return TileUse::like_naive;
    return TileUse::partly_from_global;
}

}  // namespace gpulab
