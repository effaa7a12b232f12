#include "gpulab/read_counter.h"

#ifdef GPULAB_CPU_MODE
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

TileUse classify_tile_use(double reads_per_output, double naive) {
    const double slack = 0.01 * naive;  // a few halo reads either way
    if (reads_per_output > naive + slack) return TileUse::beyond_naive;
    if (reads_per_output >= naive - slack) return TileUse::like_naive;
    return TileUse::partly_from_global;
}

}  // namespace gpulab
