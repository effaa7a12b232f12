#include "gpulab/timed_launch_count.h"

#include "gpulab/cuda_check.h"
#include "gpulab/device_facts.h"
#include "gpulab/device_resources.h"
#include "gpulab/fresh_inputs.h"
#include "gpulab/grader_test.h"
#include "gpulab/random.h"

#include <chrono>
#include <memory>
#include <sstream>

namespace gpulab {
namespace {

// The seed of a count's inputs: from the run's seed (printed, so a count can be reproduced), apart from every other
// stream drawn from it. Buffer b of every counted launch draws from fresh_hash(it, b).
std::uint64_t counted_inputs_seed() { return fresh_hash(run_seed(), 0x43C0FFEEull); }

// A block's class in one dimension of g blocks: 0 the first block, 1 an inner one, 2 the last; and how many
// blocks of that dimension the class holds.
int class_in(unsigned at, unsigned g) { return at == 0 ? 0 : at + 1 == g ? 2 : 1; }
unsigned long long blocks_in(int cls, unsigned g) { return cls == 1 ? (g > 2 ? g - 2 : 0) : 1; }

// Each whole-grid figure beside the count it is estimated from. One list per kind of count, so that weighting a
// block, taking what the recorded blocks did out of the launch's totals, and scaling by page_every never miss a field.
template <class Estimate, class Count>
struct Field {
    double Estimate::*estimate;
    unsigned long long Count::*count;
};
constexpr Field<WholeGridEstimate, RangeCount> kRangeFields[] = {
    {&WholeGridEstimate::bytes_read, &RangeCount::bytes_read},
    {&WholeGridEstimate::bytes_written, &RangeCount::bytes_written},
    {&WholeGridEstimate::load_requests, &RangeCount::load_requests},
    {&WholeGridEstimate::load_sectors, &RangeCount::load_sectors},
    {&WholeGridEstimate::load_lanes, &RangeCount::load_lanes},
    {&WholeGridEstimate::store_requests, &RangeCount::store_requests},
    {&WholeGridEstimate::store_sectors, &RangeCount::store_sectors},
    {&WholeGridEstimate::store_lanes, &RangeCount::store_lanes},
    {&WholeGridEstimate::idle_requests, &RangeCount::idle_requests},
};
constexpr Field<WholeGridShared, SharedCount> kSharedFields[] = {
    {&WholeGridShared::bytes_read, &SharedCount::bytes_read},
    {&WholeGridShared::bytes_written, &SharedCount::bytes_written},
    {&WholeGridShared::load_requests, &SharedCount::load_requests},
    {&WholeGridShared::load_wavefronts, &SharedCount::load_wavefronts},
    {&WholeGridShared::load_conflicts, &SharedCount::load_conflicts},
    {&WholeGridShared::store_requests, &SharedCount::store_requests},
    {&WholeGridShared::store_wavefronts, &SharedCount::store_wavefronts},
    {&WholeGridShared::store_conflicts, &SharedCount::store_conflicts},
    {&WholeGridShared::lane_requests, &SharedCount::lane_requests},
    {&WholeGridShared::lanes, &SharedCount::lanes},
    {&WholeGridShared::idle_requests, &SharedCount::idle_requests},
};

template <class Estimate, class Count, std::size_t N>
void add_weighted(Estimate& e, const Count& c, double w, const Field<Estimate, Count> (&fields)[N]) {
    for (const auto& f : fields) e.*f.estimate += w * double(c.*f.count);
}

template <class Estimate, class Count, std::size_t N>
void subtract(Count& a, const Count& b, const Field<Estimate, Count> (&fields)[N]) {
    for (const auto& f : fields) a.*f.count -= b.*f.count;
}

}  // namespace

WholeGridCount estimate_whole_grid(const AccessCount& count, const std::vector<unsigned>& page_every) {
    WholeGridCount out;
    const std::size_t nr = count.ranges.size();
    out.ranges.assign(nr, WholeGridEstimate{});
    // What no recorded block did (launches that ran whole without block records): counted as it ran.
    std::vector<RangeCount> rest = count.ranges;
    SharedCount shared_rest = count.shared;
    for (const CountedLaunch& l : count.counted_launches) {
        out.grid_blocks += l.grid_blocks;
        if (l.blocks.empty() || l.range_count != nr) {
            if (!l.sampled) out.covered_blocks += l.grid_blocks;
            continue;
        }
        const unsigned g[3] = {l.grid.x, l.grid.y, l.grid.z};
        auto class_of = [&](const dim3& b) {
            return class_in(b.x, g[0]) + 3 * class_in(b.y, g[1]) + 9 * class_in(b.z, g[2]);
        };
        unsigned long long sampled[27] = {}, shared_sampled[27] = {};
        for (std::size_t i = 0; i < l.blocks.size(); ++i) {
            ++sampled[class_of(l.blocks[i])];
            if (i < l.block_shared.size() && l.block_shared[i].counted) ++shared_sampled[class_of(l.blocks[i])];
        }
        for (int k = 0; k < 27; ++k) {
            if (!sampled[k]) continue;
            out.covered_blocks += blocks_in(k % 3, g[0]) * blocks_in(k / 3 % 3, g[1]) * blocks_in(k / 9, g[2]);
        }
        for (std::size_t i = 0; i < l.blocks.size(); ++i) {
            const int k = class_of(l.blocks[i]);
            const double size = double(blocks_in(k % 3, g[0]) * blocks_in(k / 3 % 3, g[1]) * blocks_in(k / 9, g[2]));
            for (std::size_t r = 0; r < nr; ++r) {
                add_weighted(out.ranges[r], l.at(i, r), size / double(sampled[k]), kRangeFields);
                subtract(rest[r], l.at(i, r), kRangeFields);
            }
            if (i < l.block_shared.size() && l.block_shared[i].counted) {
                add_weighted(out.shared, l.block_shared[i], size / double(shared_sampled[k]), kSharedFields);
                subtract(shared_rest, l.block_shared[i], kSharedFields);
            }
        }
    }
    add_weighted(out.shared, shared_rest, 1.0, kSharedFields);
    for (std::size_t r = 0; r < nr; ++r) {
        add_weighted(out.ranges[r], rest[r], 1.0, kRangeFields);
        const double every = r < page_every.size() ? std::max(1u, page_every[r]) : 1u;
        for (const auto& f : kRangeFields) out.ranges[r].*f.estimate *= every;
    }
    return out;
}

std::vector<double> bytes_per_byte_of_blocks(const AccessCount& count) {
    std::vector<double> out;
    for (const CountedLaunch& l : count.counted_launches) {
        if (l.range_count == 0) continue;
        std::vector<bool> output(l.range_count, false);
        for (std::size_t i = 0; i < l.blocks.size(); ++i)
            for (std::size_t r = 0; r < l.range_count; ++r) output[r] = output[r] || l.at(i, r).bytes_written > 0;
        for (std::size_t i = 0; i < l.blocks.size(); ++i) {
            double read = 0, written = 0;
            for (std::size_t r = 0; r < l.range_count; ++r)
                (output[r] ? written : read) += double(output[r] ? l.at(i, r).bytes_written : l.at(i, r).bytes_read);
            if (written > 0) out.push_back(read / written);
        }
    }
    return out;
}

unsigned long long sample_reaching_interior(dim3 grid, unsigned long long interior) {
    const unsigned long long g[3] = {grid.x, grid.y, grid.z};
    unsigned long long boundary = 1, inner = 1;
    for (unsigned long long gk : g) {
        if (gk == 1) continue;
        if (gk < 3) return 0;  // no inner block in that dimension: no interior
        boundary *= 3, inner *= gk - 2;
    }
    // 3^d - 1 boundary blocks (corners, one per edge and face), then the interior.
    return boundary - 1 + std::min(interior, inner);
}

double TimedLaunchCount::bytes_read(std::size_t buffer) const {
    return double(count.ranges.at(buffer).bytes_read) * page_every.at(buffer);
}

double TimedLaunchCount::bytes_written(std::size_t buffer) const {
    return double(count.ranges.at(buffer).bytes_written) * page_every.at(buffer);
}

std::string TimedLaunchCount::describe() const {
    std::ostringstream out;
    out << launch.call << " (" << blocks_run << " of its " << grid_blocks << " blocks counted";
    bool pages = false;
    for (unsigned every : page_every) pages |= every > 1;
    if (pages) out << ", on a sample of the pages";
    out << ")";
    return out.str();
}

TimedLaunchCount count_timed_launch(const GeometryCheck& launch, const TimedCountOptions& options) {
    TimedLaunchCount result;
    result.launch = launch;
    const auto start = std::chrono::steady_clock::now();
    if (!read_counting_available(&result.count.why)) return result;  // and allocates nothing of the timed size
    // Every buffer gets values drawn as the speed test draws them (launch.draws), never one value everywhere: a
    // kernel that probes its input for a flat field would otherwise do other work here than in the timed samples.
    for (std::size_t b = 0; b < launch.buffer_bytes.size(); ++b)
        if (b >= launch.draws.size() || launch.draws[b].type == BufferDraw::Type::undescribed) {
            result.count.why = "grader error: " + launch.call + " does not say how the speed test draws its buffer " +
                               std::to_string(b) + " (GeometryCheck::draws, set where the lab registers it)";
            return result;
        }
    std::vector<std::unique_ptr<LazyDeviceBuffer>> buffers;
    std::vector<void*> pointers;
    std::vector<CountedRange> ranges;
    const std::uint64_t seed = run_seed();
    const std::uint64_t inputs = counted_inputs_seed();
    for (std::size_t b = 0; b < launch.buffer_bytes.size(); ++b) {
        // Each page is filled when first touched, from (seed, buffer, offset) alone: pages agree in any order.
        const BufferDraw draw = launch.draws[b];
        const std::uint64_t buffer_seed = fresh_hash(inputs, b);
        buffers.push_back(std::make_unique<LazyDeviceBuffer>(
            launch.buffer_bytes[b],
            [draw, buffer_seed](void* dst, std::size_t offset, std::size_t len) { draw.write_values(buffer_seed, dst, offset, len); }));
        pointers.push_back(buffers.back()->data());
        const unsigned every = b < options.page_every.size() ? std::max(1u, options.page_every[b]) : 1u;
        result.page_every.push_back(every);
        ranges.push_back(CountedRange{buffers.back()->data(), 0, every, seed});
    }
    if (options.ranges) {
        ranges = options.ranges(pointers);
        result.page_every.clear();
        for (CountedRange& r : ranges) {
            r.page_every = std::max(1u, r.page_every);
            if (!r.page_seed) r.page_seed = seed;
            result.page_every.push_back(r.page_every);
        }
    }
    const BlockSample sample{options.blocks, seed, options.interior_run, options.block_accesses};
    {
        LaunchRecorder recorder;
        result.count = count_device_accesses(ranges, [&] {
            launch.launch(pointers);
            check_student_launch(launch.call);
        }, &sample, &options.shared, options.max_accesses);
        result.launches = recorder.launches();
    }
    for (const CountedLaunch& l : result.count.counted_launches) result.grid_blocks += l.grid_blocks;
    result.blocks_run = result.count.blocks_run;
    for (const auto& b : buffers) result.touched_bytes += b->touched_bytes();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

bool KernelConfiguration::same_as(const KernelConfiguration& o) const {
    return kernel == o.kernel && block.x == o.block.x && block.y == o.block.y && block.z == o.block.z &&
           shared_bytes == o.shared_bytes;
}

std::string KernelConfiguration::describe() const {
    std::ostringstream out;
    out << kernel_name_of(kernel) << ", block " << block.x << "x" << block.y << "x" << block.z << ", " << shared_bytes << " B shared";
    return out.str();
}

KernelConfiguration configuration_of(const std::vector<RecordedLaunch>& launches, const std::string& where) {
    KernelConfiguration c;
    c.where = where;
    unsigned long long most = 0;
    for (const RecordedLaunch& l : launches) {
        const unsigned long long blocks = 1ull * l.grid.x * l.grid.y * l.grid.z;
        if (c.kernel && blocks <= most) continue;
        most = blocks;
        c.kernel = l.kernel;
        c.block = l.block;
        c.shared_bytes = l.shared_bytes();
    }
    return c;
}

std::vector<RecordedLaunch> dry_run_timed(const GeometryCheck& launch, std::size_t max_bytes) {
    std::vector<DeviceBytes> buffers;
    std::vector<void*> pointers;
    for (std::size_t bytes : launch.buffer_bytes) {
        buffers.emplace_back(std::min(bytes, max_bytes));
        pointers.push_back(buffers.back().get());
    }
    std::vector<RecordedLaunch> launches = dry_run([&] { launch.launch(pointers); });
    cudaGetLastError();  // a dry run launched nothing that could fail
    return launches;
}

KernelConfiguration timed_configuration(const GeometryCheck& launch, const std::string& where) {
    if (!device_facts().emulated) return configuration_of(dry_run_timed(launch), where);
    TimedCountOptions one;
    one.blocks = 1;
    one.ranges = [](const std::vector<void*>&) { return std::vector<CountedRange>{}; };  // the record, not a count
    return configuration_of(count_timed_launch(launch, one).launches, where);
}

void expect_one_configuration(const std::vector<KernelConfiguration>& seen, const std::string& launcher) {
    const KernelConfiguration* first = nullptr;
    for (const KernelConfiguration& c : seen) {
        if (!c.kernel) continue;
        if (!first) {
            first = &c;
            continue;
        }
        if (c.same_as(*first)) continue;
        const std::string kernels = c.kernel == first->kernel ? " (the same kernel)" : " (another kernel)";
        GPULAB_EXPECT(false) << launcher << " runs two configurations: " << first->where << " launched "
                             << first->describe() << "; " << c.where << " launched " << c.describe() << kernels
                             << ". The technique is judged on one kernel and one launch configuration, at every size "
                                "it is checked and at the size that is timed: launch the same kernel with the same "
                                "block and shared memory at every size.";
        return;
    }
}

}  // namespace gpulab
