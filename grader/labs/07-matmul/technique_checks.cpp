// Lab 07's technique tests (technique_checks.h).
#include "technique_checks.h"

#include "matmul_grading.h"
#include "matrix_check.h"
#include "timed_technique.h"

#include "matmul_grading.h"
#include "matrix_check.h"
#include "oracle.h"
#include "timed_technique.h"
#include "gpulab/counted_work.h"
#include "gpulab/launch_geometry.h"
#include "gpulab/random_size.h"
#include "gpulab/compare.h"
#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/phase_clock.h"
#include "gpulab/read_counter.h"
#include "gpulab/shared_reads.h"
#include "gpulab/timed_launch_count.h"
#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

namespace matmul_grading {

using gpulab::fixed;

// The compiled kernels' shared memory, read from their launches: the tiled ones need room for a tile of A
// and one of B; the naive ones none (a tiled kernel in a naive slot would pass the naive speed bar).
void check_tiled_uses_shared_memory() {
    GPULAB_REQUIRE_GPU();
    const std::size_t min_bytes = section("technique").at("min_tiled_shared_bytes");
    const Shape s{256, 256, 256};
    auto rng = gpulab::Rng::for_current_test();
    const Inputs in = random_inputs(rng, s);
    std::ostringstream figure, problems;
    for (Kernel kernel : kKernels) {
        const KernelRun run = run_student(kernel, in, s);
        if (run.launches.empty()) {
            problems << "\n  " << launch_name(kernel) << " launched no kernel.";
            continue;
        }
        if (is_tiled(kernel)) {
            // The configuration judged here is the one the speed test times: the timed launches, in a dry run.
            std::vector<gpulab::KernelConfiguration> seen{gpulab::configuration_of(run.launches, call_text(kernel, s))};
            for (const gpulab::GeometryCheck& timed : gpulab::timed_launches(timed_suite(kernel)))
                seen.push_back(gpulab::configuration_of(gpulab::dry_run_timed(timed), timed.call + " (the launch the speed test times)"));
            gpulab::expect_one_configuration(seen, launch_name(kernel));
        }
        std::size_t least = SIZE_MAX, most = 0;
        for (const gpulab::RecordedLaunch& l : run.launches)
            least = std::min(least, l.shared_bytes()), most = std::max(most, l.shared_bytes());
        figure << (figure.tellp() ? ", " : "") << kernel_name(kernel) << " " << most << " B";
        if (is_tiled(kernel) && least < min_bytes)
            problems << "\n  " << launch_name(kernel) << ": " << run.launches.front().describe() << ". A tiled kernel "
                     << "keeps a tile of A and a tile of B in __shared__ arrays: at least " << min_bytes
                     << " B (two 8 x 8 float tiles; 16 x 16 tiles are 2048 B, 32 x 32 tiles 8192 B). Does this launch "
                     << "run your tiled kernel?";
        if (!is_tiled(kernel) && most > 0)
            problems << "\n  " << launch_name(kernel) << ": " << run.launches.front().describe()
                     << ". The naive kernel reads A and B straight from global memory: no shared memory (is your tiled "
                        "kernel in the naive slot?).";
    }
    gpulab::record_figure(figure.str() + " shared/block", "tiled >= " + std::to_string(min_bytes) + " B, naive 0 B");
    GPULAB_EXPECT(problems.str().empty()) << "The kernels' shared memory, per block:" << problems.str();
}

namespace {

// Reads of A and B per multiply-add by one launch, counted exactly in CPU execution mode (skips the test
// where it cannot count). `launch_seen`, where given, receives the launch that covers C (the most blocks).
double reads_per_multiply_add(const MatmulApi& api, Kernel kernel, const Shape& s,
                              gpulab::RecordedLaunch* launch_seen = nullptr,
                              std::vector<gpulab::RecordedLaunch>* all_seen = nullptr,
                              gpulab::SharedReads* shared = nullptr) {
    auto rng = gpulab::Rng::for_current_test();
    const Inputs in = random_inputs(rng, s);
    const std::vector<float>& b = in.b_for(kernel);
    gpulab::GuardedDeviceArray<float> d_a(in.a.size()), d_b(b.size()), d_c(std::size_t(s.m) * s.n);
    d_a.upload(in.a);
    d_b.upload(b);
    const auto launch = [&] {
        launcher(api, kernel)(d_a.data(), d_b.data(), d_c.data(), s.m, s.n, s.k);
        gpulab::check_student_launch(call_text(kernel, s));
    };
    // One buffer at a time: the counter watches one range.
    std::optional<gpulab::LaunchRecorder> recorder;
    if (launch_seen) recorder.emplace();
    const gpulab::ReadCount a_reads = gpulab::count_device_reads(d_a.data(), in.a.size() * sizeof(float), launch);
    if (launch_seen) {
        const auto blocks = [](const gpulab::RecordedLaunch& l) { return 1ull * l.grid.x * l.grid.y * l.grid.z; };
        for (const gpulab::RecordedLaunch& l : recorder->launches())
            if (blocks(l) > blocks(*launch_seen)) *launch_seen = l;
        if (all_seen) *all_seen = recorder->launches();
        recorder.reset();
    }
    const gpulab::ReadCount b_reads = gpulab::count_device_reads(d_b.data(), b.size() * sizeof(float), launch);
    for (const gpulab::ReadCount* c : {&a_reads, &b_reads})
        if (!c->available) {
            ADD_FAILURE() << "grader could not count reads: " << c->why;
            return -1;
        }
    // Its shared memory, in a block of the product, up to the lab's budget (gpulab/shared_reads.h).
    if (shared)
        *shared = gpulab::count_shared_sample(launch, gpulab::shared_reads_bar(section("technique")), a_reads.launches);
    return double(a_reads.reads + b_reads.reads) / s.multiply_adds();
}

// CPU execution mode's count of a timed launch, per element of C, for the GPU's comparison of its drawn timed
// samples (gpulab/counted_work.h).
void record_timed_count(Kernel kernel, const gpulab::GeometryCheck& launch, const TimedReads& t) {
    const double n = std::round(std::sqrt(double(launch.buffer_bytes.at(0)) / sizeof(float)));  // N x N x N
    gpulab::CountedWork w;
    w.suite = launch.suite, w.instance = launch.instance, w.call = t.describe();
    w.kernel = std::string("your ") + kernel_name(kernel) + " kernel";
    w.element = "A and B";
    w.per = "element of C";
    w.outputs = n * n;
    w.element_bytes = sizeof(float);
    w.global_per_output = t.per_mad * n;  // loads per multiply-add, k multiply-adds per element of C
    w.shared_per_output = t.shared_per_c;
    gpulab::record_counted_work({w});
}

using Configurations = std::vector<gpulab::KernelConfiguration>[2];  // tiled, tiled on Bt

// The small products (lab.json technique.shapes_mnk and one drawn for the run), every read of A and B counted.
struct SmallShapeReads {
    double worst = -1;
    std::string worst_call, too_few, figure;
    gpulab::RecordedLaunch worst_launch;
    Kernel worst_kernel = Kernel::tiled;
    Shape worst_shape{};
};

SmallShapeReads small_shape_reads(Configurations& configurations, std::vector<gpulab::SharedReadsSeen>& shared) {
    SmallShapeReads r;
    std::ostringstream figure;
    std::vector<Shape> shapes = shapes_of(section("technique").at("shapes_mnk"));
    const std::vector<int> drawn = gpulab::random_size_for_run(section("technique").at("reads_random_mnk"));
    shapes.push_back({drawn[0], drawn[1], drawn[2]});  // and one nobody can predict
    // Shared memory is counted on the drawn shape and the timed launches: a shared access costs ~30 us here.
    for (Kernel kernel : {Kernel::tiled, Kernel::tiled_bt})
        for (const Shape& s : shapes) {
            gpulab::RecordedLaunch seen;
            std::vector<gpulab::RecordedLaunch> launches;
            gpulab::SharedReads staged;
            const bool drawn_shape = &s == &shapes.back();
            const double per_mad =
                reads_per_multiply_add(student(), kernel, s, &seen, &launches, drawn_shape ? &staged : nullptr);
            if (drawn_shape)
                shared.push_back({std::string(kernel_name(kernel)) + " " + s.name(), call_text(kernel, s), staged,
                                  fixed(per_mad, 3) + " loads of A and B per multiply-add"});
            if (testing::Test::HasFailure()) return r;
            configurations[kernel == Kernel::tiled_bt].push_back(gpulab::configuration_of(launches, call_text(kernel, s)));
            figure << (figure.tellp() ? ", " : "") << kernel_name(kernel) << " " << s.name() << " " << fixed(per_mad, 3);
            if (per_mad > r.worst)
                r.worst = per_mad, r.worst_call = call_text(kernel, s), r.worst_kernel = kernel, r.worst_shape = s,
                r.worst_launch = seen;
            // Every element of A and B must be read at least once to compute C: fewer reads mean C did not
            // come from a kernel (a launch that computes on the host reads nothing on the device).
            const double floor = (double(s.m) * s.k + double(s.k) * s.n) / s.multiply_adds();
            if (r.too_few.empty() && per_mad < floor * (1 - 1e-9))
                r.too_few = call_text(kernel, s) + " reads A and B " + fixed(per_mad, 3) +
                            " times per multiply-add, fewer than the " + fixed(floor, 3) +
                            " that reading each element of A and B once takes";
        }
    r.figure = figure.str();
    return r;
}

// The launches the speed tests time, counted on a sample of their blocks (timed_technique.h): the bar that proves the
// shared tile. Register blocking from global memory alone, TM x TN values of C per thread, loads (TM + TN) / (TM TN)
// per multiply-add: at least 0.1325 within a thread's 255 registers (13 x 18); a 16 x 16 shared tile loads 0.125.
struct TimedLaunchReads {
    std::string figure, problems;
    double seconds = 0;
};

TimedLaunchReads timed_launch_reads(double timed_bound, Configurations& configurations,
                                    std::vector<gpulab::SharedReadsSeen>& shared) {
    const unsigned long long timed_blocks = section("technique").at("timed_blocks");
    std::ostringstream figure, problems;
    TimedLaunchReads r;
    for (Kernel kernel : {Kernel::tiled, Kernel::tiled_bt}) {
        bool failed = false;  // after a kernel's first failing launch, its others give only their configuration
        for (const gpulab::GeometryCheck& timed : gpulab::timed_launches(timed_suite(kernel))) {
            // One block first (the corner at blockIdx 0, a whole tile): a kernel that reads from global memory
            // costs every access it makes in the count, so a clear failure there is not run on 8 more blocks.
            TimedReads t = count_timed_reads(kernel, timed, failed ? 0 : 1);
            if (!failed && t.available && t.per_mad <= timed_bound) {
                const double first = t.seconds;
                t = count_timed_reads(kernel, timed, timed_blocks);
                t.seconds += first;
            }
            r.seconds += t.seconds;
            configurations[kernel == Kernel::tiled_bt].push_back(t.configuration);
            if (failed) continue;
            failed = !t.available || t.per_mad > timed_bound;
            if (!t.available) {
                problems << "\n  " << t.describe() << ": not counted: " << t.why << ".";
                continue;
            }
            figure << (figure.tellp() ? ", " : "") << kernel_name(kernel) << " N=" << timed.instance.substr(1) << " "
                   << fixed(t.per_mad, 4);
            shared.push_back({std::string(kernel_name(kernel)) + " " + timed.instance + " (timed)", t.describe(), t.shared,
                              fixed(t.per_mad, 4) + " loads of A and B per multiply-add"});
            record_timed_count(kernel, timed, t);
            testing::Test::RecordProperty("timed_" + std::string(timed_suite(kernel)) + "_" + timed.instance,
                                          t.describe() + ": A " + fixed(t.a_per_mad, 4) + " + B " + fixed(t.b_per_mad, 4) +
                                              " loads per multiply-add, " + fixed(t.seconds, 2) + " s");
            if (t.per_mad > timed_bound)
                problems << "\n  " << t.describe() << " loads " << fixed(t.per_mad, 3)
                         << " elements of A and B from global memory per multiply-add (A " << fixed(t.a_per_mad, 3)
                         << ", B " << fixed(t.b_per_mad, 3) << "; allowed: at most " << fixed(timed_bound, 2) << ").";
        }
    }
    r.figure = figure.str();
    r.problems = problems.str();
    return r;
}

// What the worst small product's reads say about the kernel, against the naive kernel's `naive` reads.
std::string tile_use_advice(const SmallShapeReads& r, double naive, double bound) {
    switch (gpulab::classify_tile_use(r.worst, naive)) {
        case gpulab::TileUse::like_naive:
            return "That is as often as a naive kernel, which reads A and B from global memory for every multiply-add: "
                   "does the launch run your tiled kernel, and does its inner loop multiply the __shared__ tiles?";
        case gpulab::TileUse::beyond_naive:
            return "That is more than a naive kernel (" + fixed(naive, 2) + "): your kernel copies tiles into shared "
                   "memory but still reads A or B from global memory in its inner loop. After __syncthreads(), "
                   "multiply a_tile and b_tile.";
        default: break;
    }
    // From the student's own launch: a block that loads the rows of A and the columns of B its tile of C needs, once
    // each, reads every element of A once per block column and of B once per block row.
    const gpulab::RecordedLaunch& l = r.worst_launch;
    const Shape& s = r.worst_shape;
    const double ideal = double(std::min<int>(l.grid.x, s.n)) / s.n + double(std::min<int>(l.grid.y, s.m)) / s.m;
    return "Your launch at " + s.name() + " has " + std::to_string(l.grid.x) + " x " + std::to_string(l.grid.y) +
           " blocks (x along the columns of C); blocks that each read the rows of A and the columns of B of their tile "
           "once would read " + fixed(ideal, 3) + " floats per multiply-add" +
           (ideal > bound ? ", over the bar already: give each block a larger tile of C (16 x 16 tiles read about 0.125 "
                            "per multiply-add)."
                          : ". Yours reads more: some operands still come from global memory in the inner loop, or "
                            "tiles are loaded more than once (a naive kernel reads " + fixed(naive, 2) + ").");
}

}  // namespace

// How often the tiled kernels read A and B: a naive kernel reads a float of A and one of B for every
// multiply-add (fewer loads where the compiler merges neighbouring floats of A into one vector load), a
// kernel that multiplies T x T tiles from shared memory 2 / T. The reference's naive kernel, counted the
// same way, says what "as often as naive" means here.
void check_computes_from_shared_tiles() {
    GPULAB_REQUIRE_DEVICE();
    GPULAB_REQUIRE_READ_COUNTER();
    const double bound = section("technique").at("max_reads_per_multiply_add");
    Configurations configurations;
    std::vector<gpulab::SharedReadsSeen> shared;
    const SmallShapeReads small = small_shape_reads(configurations, shared);
    if (testing::Test::HasFailure()) return;
    // The reference's naive kernel, counted the same way, only where the advice needs it: counting a naive
    // kernel's reads costs seconds in CPU execution mode (every read of A and B traps).
    double naive_at_worst = 2;
    std::string naive_note;
    if (small.worst > bound) {
        naive_at_worst = reads_per_multiply_add(
            reference(), takes_bt(small.worst_kernel) ? Kernel::naive_bt : Kernel::naive, small.worst_shape);
        if (testing::Test::HasFailure()) return;
        naive_note = " (naive: " + fixed(naive_at_worst, 2) + ")";
    }
    const double timed_bound = section("technique").at("timed_max_loads_per_multiply_add");
    const TimedLaunchReads timed = timed_launch_reads(timed_bound, configurations, shared);
    testing::Test::RecordProperty("timed_count_seconds", fixed(timed.seconds, 2));
    const gpulab::SharedReadsBar shared_bar = gpulab::shared_reads_bar(section("technique"));
    const double staged = gpulab::expect_reads_from_tile(
        shared, shared_bar,
        {"your tiled kernel", "its tiles",
         "A tiled kernel reads each value it stages in its tiles once for every row (or column) of C that its block "
         "computes with it: 32 times with 32 x 32 tiles, 16 with 16 x 16 (fewer over a block's first accesses, "
         "counted here, where its first tiles are loaded)"});
    gpulab::record_figure(small.figure + " reads per multiply-add" + naive_note + "; timed launches: " + timed.figure +
                              " loads per multiply-add (" + fixed(timed.seconds, 1) + " s); shared: " + fixed(staged, 2) +
                              " reads per value staged",
                          "<= " + fixed(bound, 2) + " reads of A and B per multiply-add; timed launches <= " +
                              fixed(timed_bound, 2) + "; >= " + fixed(shared_bar.min_reads_per_write, 1) +
                              " shared reads per value staged");
    GPULAB_EXPECT(timed.problems.empty())
        << "The tiled kernels at the sizes the speed tests time, counted in CPU execution mode on a sample of their "
           "blocks (bytes of A and B read, over a window of K chosen for this run):"
        << timed.problems
        << "\n  The multiply-adds must be fed from shared memory: a block that stages T x T tiles of A and B and "
           "multiplies them there loads 2/T per multiply-add (16 x 16: 0.125, 32 x 32: 0.0625). Register blocking "
           "alone, each thread computing TM x TN values of C from A and B in global memory, loads (TM + TN) / (TM TN) "
           "(4 x 4: 0.5), and cannot get under " << fixed(timed_bound, 2) << " in a thread's 255 registers. Every "
           "launch of the tiled kernel must use its tiles, at every size: the timed launch is counted too.";
    for (Kernel kernel : {Kernel::tiled, Kernel::tiled_bt})
        gpulab::expect_one_configuration(configurations[kernel == Kernel::tiled_bt], launch_name(kernel));
    GPULAB_EXPECT(small.too_few.empty()) << small.too_few << ": C was not computed from A and B by a kernel. The tiled "
                                         << "launch must compute C on the GPU, in your tiled kernel.";
    GPULAB_EXPECT(small.worst <= bound) << small.worst_call << " reads A and B " << fixed(small.worst, 3)
                                        << " times per multiply-add (counted exactly in CPU execution mode; allowed: at "
                                        << "most " << fixed(bound, 2) << "). " << tile_use_advice(small, naive_at_worst, bound);
}

}  // namespace matmul_grading
