#include "gpulab/shared_reads.h"

#include "gpulab/cuda_check.h"
#include "gpulab/device_resources.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/launch_geometry.h"
#include "gpulab/random.h"
#include "gpulab/profile_limits.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gpulab {

double SharedReads::reads_per_write() const {
    return bytes_written > 0 ? bytes_read / bytes_written : std::numeric_limits<double>::quiet_NaN();
}

std::string SharedReads::describe() const {
    std::ostringstream out;
    out << fixed(reads_per_write(), 2) << " reads per value staged (" << fixed(bytes_written, 0) << " B written, "
        << fixed(bytes_read, 0) << " B read, " << blocks << (blocks == 1 ? " block" : " blocks");
    if (blocks_capped) out << ", " << blocks_capped << " of them up to their budget";
    out << ")";
    return out.str();
}

SharedReads shared_reads_of(const AccessCount& count) {
    SharedReads r;
    for (const CountedLaunch& l : count.counted_launches)
        for (const SharedCount& b : l.block_shared)
            if (b.counted) ++r.blocks, r.blocks_capped += b.blocks_capped > 0;
    // Launches that ran whole without block records (none of the technique tests' launches) still add to the totals.
    r.counted = count.shared.counted && (r.blocks > 0 || count.shared.loads + count.shared.stores > 0);
    r.bytes_read = double(count.shared.bytes_read);
    r.bytes_written = double(count.shared.bytes_written);
    return r;
}

SharedCounting SharedReadsBar::counting() const {
    SharedCounting how;
    how.on = true;
    how.faults_per_block = faults_per_block;
    how.blocks_per_class = 1;
    how.least_class_share = least_class_share;
    return how;
}

SharedReadsBar shared_reads_bar(const Json& technique) {
    const Json& spec = config_at(technique, "shared_reads");
    SharedReadsBar bar;
    bar.min_reads_per_write = spec.at("min_reads_per_write");
    bar.faults_per_block = spec.value("faults_per_block", 0ull);
    bar.least_class_share = spec.value("least_class_share", bar.least_class_share);
    bar.small_blocks = spec.value("small_blocks", bar.small_blocks);
    return bar;
}

SharedCounting shared_counting_for(unsigned long long launches, const SharedReadsBar& bar, std::string* why) {
    if (launches <= kMaxProfiledKernels) return bar.counting();
    if (why)
        *why = "shared memory not counted: the launch function made " + std::to_string(launches) +
               " launches (it is counted where it makes at most " + std::to_string(kMaxProfiledKernels) + ")";
    return SharedCounting{};
}

SharedCounting shared_counting_for(const GeometryCheck& launch, const SharedReadsBar& bar, std::string* why) {
    // A dry run touches no buffer: a page each stands for the timed size's.
    std::vector<DeviceBytes> buffers;
    std::vector<void*> pointers;
    for (std::size_t bytes : launch.buffer_bytes) {
        buffers.emplace_back(std::min<std::size_t>(bytes, 4096));
        pointers.push_back(buffers.back().get());
    }
    const std::size_t launches = dry_run([&] { launch.launch(pointers); }).size();
    cudaGetLastError();  // a dry run launched nothing that could fail
    return shared_counting_for(launches, bar, why);
}

SharedReads count_shared_sample(const std::function<void()>& launch, const SharedReadsBar& bar,
                                unsigned long long launches) {
    SharedReads not_counted;
    SharedCounting how = shared_counting_for(launches, bar, &not_counted.why);
    if (!how.on) return not_counted;
    const BlockSample sample{bar.small_blocks, run_seed(), 1};
    AccessCount count = count_device_accesses({}, launch, &sample, &how);
    if (count.available && !shared_reads_of(count).counted) {
        // No class of its grid held least_class_share of its blocks (many small blocks): one block of every class.
        how.least_class_share = 0;
        count = count_device_accesses({}, launch, &sample, &how);
    }
    return shared_reads_of(count);
}

SharedReads timed_shared_reads(const TimedLaunchCount& counted, TimedCountOptions options, const SharedReadsBar& bar,
                               const std::string& why) {
    SharedReads reads = shared_reads_of(counted.count);
    if (!options.shared.on) reads.counted = false, reads.why = why;
    if (reads.counted || !options.shared.on || !counted.count.available) return reads;
    options.ranges = [](const std::vector<void*>&) { return std::vector<CountedRange>{}; };  // shared memory only
    options.shared = bar.counting();
    options.shared.least_class_share = 0;
    return shared_reads_of(count_timed_launch(counted.launch, options).count);
}

double shared_elements_per_output(const AccessCount& count, std::size_t output_range, double page_every) {
    double read = 0, written = 0;
    for (const CountedLaunch& l : count.counted_launches) {
        if (l.range_count <= output_range) continue;
        for (std::size_t i = 0; i < l.blocks.size() && i < l.block_shared.size(); ++i) {
            const SharedCount& s = l.block_shared[i];
            if (!s.counted || s.blocks_capped) continue;
            read += double(s.bytes_read);
            written += double(l.at(i, output_range).bytes_written) * page_every;
        }
    }
    return written > 0 ? read / written : std::numeric_limits<double>::quiet_NaN();
}

double expect_reads_from_tile(const std::vector<SharedReadsSeen>& seen, const SharedReadsBar& bar,
                              const SharedReadsWording& w) {
    const SharedReadsSeen* worst = nullptr;
    double worst_ratio = std::numeric_limits<double>::quiet_NaN();
    std::string figure;
    for (const SharedReadsSeen& s : seen) {
        if (!s.reads.counted) {
            if (!s.reads.why.empty()) testing::Test::RecordProperty("shared_reads_not_counted_" + s.label, s.reads.why);
            continue;
        }
        // A kernel that wrote nothing to shared memory read nothing back from it either: 0 per value staged.
        const double ratio = s.reads.bytes_written > 0 ? s.reads.reads_per_write() : 0.0;
        std::string key = "shared_reads_per_write_" + s.label;
        std::replace(key.begin(), key.end(), ' ', '_');
        testing::Test::RecordProperty(key, fixed(ratio, 2));
        figure += (figure.empty() ? "" : ", ") + fixed(ratio, 2) + " at " + s.label;
        if (!worst || ratio < worst_ratio) worst = &s, worst_ratio = ratio;
    }
    if (!worst) return worst_ratio;
    testing::Test::RecordProperty("shared_reads_per_write", figure);
    std::ostringstream why;
    why << worst->where << ": " << w.kernel << " wrote " << fixed(worst->reads.bytes_written, 0)
        << " bytes into shared memory and read " << fixed(worst->reads.bytes_read, 0) << " back, "
        << fixed(worst_ratio, 2) << " reads per value staged (counted in CPU execution mode in "
        << worst->reads.blocks << (worst->reads.blocks == 1 ? " block" : " blocks") << " of the launch"
        << (worst->reads.blocks_capped ? ", each up to its first " + std::to_string(bar.faults_per_block) + " accesses" : "")
        << "; at least " << fixed(bar.min_reads_per_write, 1) << " expected, at every size counted and on the launch "
        << "the speed test times). " << w.implies << ". "
        << (worst->reads.bytes_written == 0 ? "Yours stages nothing there: "
                                            : worst_ratio < 1 ? "Yours fills " + w.tile + " but reads around it: "
                                                              : "Yours reads " + w.tile + " for only part of the values: ")
        << "the values each output needs came from elsewhere (" << worst->global
        << "; from global memory, or from registers loaded from global memory). Compute every output from " << w.tile
        << " after __syncthreads().";
    GPULAB_EXPECT(worst_ratio >= bar.min_reads_per_write) << why.str();
    return worst_ratio;
}

}  // namespace gpulab
