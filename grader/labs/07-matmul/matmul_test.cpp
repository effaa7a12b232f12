// The grader of lab 07 (matrix multiply): correctness and technique. Points, shapes and tolerances come
// from labs/07-matmul/lab.json; the handout describes every test by the same name. Speed and the cuBLAS
// bar are in speed_test.cpp, the comparison study in comparison_study_test.cpp.
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

namespace {

using namespace matmul_grading;
using gpulab::fixed;

std::string shape_test_name(const testing::TestParamInfo<Shape>& info) {
    return "m" + std::to_string(info.param.m) + "_n" + std::to_string(info.param.n) + "_k" + std::to_string(info.param.k);
}

std::vector<Shape> correctness_shapes() { return shapes_of(section("correctness").at("shapes_mnk")); }

// A shape whose sizes are not whole tiles failed: does the kernel get whole tiles right? If it does, the
// bug is at the matrix edge, and the message can say so with confidence.
std::string edge_probe(Kernel kernel, const Shape& s, const KernelRun& run, double factor) {
    const gpulab::RecordedLaunch* launch = main_launch(run);
    if (!launch) return "";
    const int bx = int(launch->block.x), by = int(launch->block.y);
    const int tile = std::max(bx, by);
    if (s.m % by == 0 && s.n % bx == 0 && s.k % tile == 0) return "";
    const Shape whole{2 * by, 2 * bx, 4 * tile};
    auto rng = gpulab::Rng::for_current_test();
    const Inputs in = random_inputs(rng, whole);
    const auto rerun = [&](Fill fill) { return run_student(kernel, in, whole, fill); };
    const ProductReport probe = check_product(kernel, whole, rerun(Fill::poison), rerun(Fill::second),
                                              matmul_oracle::multiply(in.a, in.b, whole.m, whole.n, whole.k), factor, rerun);
    if (!probe.ok) return "";
    return "\n  Likely cause: the matrix edge. At " + whole.name() + " (M x N x K, whole " + std::to_string(bx) + " x " +
           std::to_string(by) + " tiles) the same kernel is right; at " + s.name() +
           ", where tiles stick out past the matrix, it is not. " +
           (is_tiled(kernel) ? "Every tile load must check its row and column against the matrix (m and k for A, k "
                               "and n for B) and store 0.0f outside it, the loop over k must cover a last, partial "
                               "tile ((k + TILE - 1) / TILE steps), and only threads inside C may write."
                             : "Every thread must check row < m and col < n before it writes, and the loop over k "
                               "must run to k exactly.");
}

void check_kernel(Kernel kernel, const Shape& s) {
    GPULAB_REQUIRE_DEVICE();
    const double factor = section("correctness").at("tolerance_factor");
    auto rng = gpulab::Rng::for_current_test();
    std::optional<gpulab::PhaseClock> phase(std::in_place, "inputs");
    const Inputs in = random_inputs(rng, s);
    const auto rerun = [&](Fill fill) { return run_student(kernel, in, s, fill); };
    phase.emplace("two launches");
    const KernelRun first = rerun(Fill::poison), second = rerun(Fill::second);
    phase.emplace("oracle");
    const matmul_oracle::Product expected = matmul_oracle::multiply(in.a, in.b, s.m, s.n, s.k);
    phase.emplace("check");
    const ProductReport r = check_product(kernel, s, first, second, expected, factor, rerun);
    phase.reset();
    // A case failed with every value right wrote where it must not: the figure says so, not only the error.
    gpulab::record_figure(r.wrong ? std::to_string(r.wrong) + " of " + std::to_string(std::size_t(s.m) * s.n) + " wrong at " + s.name()
                          : r.ok  ? "largest error " + fixed(r.worst, 2) + "x allowed"
                                  : "values right, but wrote outside C or into an input at " + s.name(),
                          "|error| <= " + fixed(factor, 0) + " u sqrt(K) sum|A B| per element");
    if (r.ok) return;
    std::string message = r.message;
    if (r.wrong > r.unwritten && message.find("Likely cause") == std::string::npos) message += edge_probe(kernel, s, first, factor);
    ADD_FAILURE() << message;
}

class Naive : public testing::TestWithParam<Shape> {};
class Tiled : public testing::TestWithParam<Shape> {};
class NaiveBt : public testing::TestWithParam<Shape> {};
class TiledBt : public testing::TestWithParam<Shape> {};

const char* timed_suite(Kernel kernel) {
    return kernel == Kernel::naive ? "Naive" : kernel == Kernel::tiled ? "Tiled" : kernel == Kernel::naive_bt ? "NaiveBt" : "TiledBt";
}

// Every product kernel at the timed sizes, in a dry run (gpulab/launch_geometry.h): instances of its MatchesOracle.
// Their buffers as timed_product.cpp draws them (A and B: FreshDraw's -1 ... 1; C not read), for the launches
// counted in their place.
const bool kTimedGeometry = gpulab::add_geometry_checks([] {
    const gpulab::BufferDraw operand = gpulab::BufferDraw::floats(gpulab::FreshDraw{});
    std::vector<gpulab::GeometryCheck> checks;
    for (int n : section("speed").at("sizes").get<std::vector<int>>())
        for (Kernel kernel : kKernels) {
            // The call the speed tests time (speed_test.cpp: the student's launch on N x N buffers, m = n = k = N).
            const char* suite = timed_suite(kernel);
            const std::size_t bytes = std::size_t(n) * n * sizeof(float);
            checks.push_back({suite, "MatchesOracle", "N" + std::to_string(n), call_text(kernel, {n, n, n}),
                              {bytes, bytes, bytes}, [kernel, n](const std::vector<void*>& b) {
                                  launcher(student(), kernel)(static_cast<float*>(b[0]), static_cast<float*>(b[1]),
                                                              static_cast<float*>(b[2]), n, n, n);
                              }, {operand, operand, gpulab::BufferDraw::output_like(operand)}});
        }
    return checks;
});

TEST_P(Naive, MatchesOracle) { check_kernel(Kernel::naive, GetParam()); }
TEST_P(Tiled, MatchesOracle) { check_kernel(Kernel::tiled, GetParam()); }
TEST_P(NaiveBt, MatchesOracle) { check_kernel(Kernel::naive_bt, GetParam()); }
TEST_P(TiledBt, MatchesOracle) { check_kernel(Kernel::tiled_bt, GetParam()); }

INSTANTIATE_TEST_SUITE_P(Shapes, Naive, testing::ValuesIn(correctness_shapes()), shape_test_name);
INSTANTIATE_TEST_SUITE_P(Shapes, Tiled, testing::ValuesIn(correctness_shapes()), shape_test_name);
INSTANTIATE_TEST_SUITE_P(Shapes, NaiveBt, testing::ValuesIn(correctness_shapes()), shape_test_name);
INSTANTIATE_TEST_SUITE_P(Shapes, TiledBt, testing::ValuesIn(correctness_shapes()), shape_test_name);

// ---- The transpose -------------------------------------------------------------------------------------

struct TransposeShape {
    int rows, cols;
};

std::vector<TransposeShape> transpose_shapes() {
    std::vector<TransposeShape> shapes;
    for (const gpulab::Json& s : section("transpose").at("shapes")) shapes.push_back({s.at(0), s.at(1)});
    return shapes;
}

class Transpose : public testing::TestWithParam<TransposeShape> {};

TEST_P(Transpose, Exact) {
    GPULAB_REQUIRE_DEVICE();
    const auto [rows, cols] = GetParam();
    const std::string call = "launch_transpose(rows=" + std::to_string(rows) + ", cols=" + std::to_string(cols) + ")";
    auto rng = gpulab::Rng::for_current_test();
    std::optional<gpulab::PhaseClock> phase(std::in_place, "inputs and oracle");
    const Inputs in = random_inputs(rng, {rows, 1, cols});  // A is rows x cols
    const std::vector<float> expected = matmul_oracle::transpose(in.a, rows, cols);
    phase.emplace("launch and check");
    gpulab::GuardedDeviceArray<float> d_in(in.a.size()), d_out(in.a.size());
    d_in.upload(in.a);
    std::vector<gpulab::RecordedLaunch> launches;
    {
        std::optional<gpulab::LaunchRecorder> recorder;
        if (gpulab::launch_recording_supported()) recorder.emplace();
        student().transpose(d_in.data(), d_out.data(), rows, cols);
        gpulab::check_student_launch(call);
        if (recorder) launches = recorder->launches();
    }
    const std::vector<float> out = d_out.download();
    std::size_t wrong = 0, unwritten = 0;
    std::ostringstream first;
    int shown = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (gpulab::same_bits(out[i], expected[i])) continue;
        ++wrong;
        const bool never = gpulab::is_poison(out[i]);
        unwritten += never;
        if (shown++ < 5) {
            first << "\n    out(" << i / rows << ", " << i % rows << ") should be in(" << i % rows << ", " << i / rows
                  << ") = " << gpulab::num(expected[i]) << "; ";
            if (never) first << "never written";
            else first << "got " << gpulab::num(out[i]);
        }
    }
    std::string outside;
    if (d_in.download() != in.a) outside += "\n  it changed its input";
    for (const auto& [array, report] : {std::pair{"the input", d_in.check_guards()}, {"the output", d_out.check_guards()}})
        if (!report.intact()) outside += "\n  " + report.describe(array);
    gpulab::record_figure(std::to_string(out.size() - wrong) + " of " + std::to_string(out.size()) + " exact", "every element, bit for bit");
    if (wrong == 0 && outside.empty()) return;
    std::ostringstream m;
    m << call << ":";
    if (wrong) {
        m << " " << wrong << " of " << out.size() << " elements are wrong";
        if (unwritten) m << " (" << unwritten << " never written)";
        m << ". out is cols x rows = " << cols << " x " << rows << ", out(c, r) = in(r, c) at out[c * rows + r]. The first:"
          << first.str();
        std::string cause;
        if (gpulab::launch_recording_supported() && launches.empty())
            cause = "TODO(lab-7) step 3a: launch_transpose launched no kernel, so nothing was written.";
        else if (unwritten == out.size())
            cause = "Your kernel wrote nothing: every element still holds the NaN the grader put there.";
        else if (rows != cols && out == in.a)
            cause = "out is a copy of in, not its transpose: write in(r, c) to out[c * rows + r].";
        else if (unwritten && !launches.empty()) {
            const gpulab::RecordedLaunch& l = launches.front();
            const long long across = (long long)l.grid.x * l.block.x, down = (long long)l.grid.y * l.block.y;
            if (across < cols || down < rows)
                cause = "Your grid (" + std::to_string(l.grid.x) + " x " + std::to_string(l.grid.y) + " blocks of " +
                        std::to_string(l.block.x) + " x " + std::to_string(l.block.y) +
                        " threads) does not reach every element of the " + std::to_string(rows) + " x " +
                        std::to_string(cols) + " input (if each thread copies one element). Round the grid up in both "
                        "directions; with a shared-memory tile, each block must copy its whole tile.";
        }
        if (!cause.empty()) m << "\n  Likely cause: " << cause;
    }
    if (!outside.empty()) m << "\n  Outside the output:" << outside;
    ADD_FAILURE() << m.str();
}

INSTANTIATE_TEST_SUITE_P(Shapes, Transpose, testing::ValuesIn(transpose_shapes()),
                         [](const testing::TestParamInfo<TransposeShape>& info) {
                             return "rows" + std::to_string(info.param.rows) + "_cols" + std::to_string(info.param.cols);
                         });

// ---- Technique -------------------------------------------------------------------------------------------

// The compiled kernels' shared memory, read from their launches: the tiled ones need room for a tile of A
// and one of B; the naive ones none (a tiled kernel in a naive slot would pass the naive speed bar).
TEST(Technique, TiledUsesSharedMemory) {
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
                seen.push_back(gpulab::configuration_of(dry_run_timed(timed), timed.call + " (the launch the speed test times)"));
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

// How often the tiled kernels read A and B: a naive kernel reads a float of A and one of B for every
// multiply-add (fewer loads where the compiler merges neighbouring floats of A into one vector load), a
// kernel that multiplies T x T tiles from shared memory 2 / T. The reference's naive kernel, counted the
// same way, says what "as often as naive" means here.
TEST(Technique, ComputesFromSharedTiles) {
    GPULAB_REQUIRE_DEVICE();
    GPULAB_REQUIRE_READ_COUNTER();
    const double bound = section("technique").at("max_reads_per_multiply_add");
    double worst = -1, naive_at_worst = 2;
    std::string worst_call, too_few;
    gpulab::RecordedLaunch worst_launch;
    Kernel worst_kernel = Kernel::tiled;
    Shape worst_shape{};
    std::ostringstream figure;
    std::vector<Shape> shapes = shapes_of(section("technique").at("shapes_mnk"));
    const std::vector<int> drawn = gpulab::random_size_for_run(section("technique").at("reads_random_mnk"));
    shapes.push_back({drawn[0], drawn[1], drawn[2]});  // and one nobody can predict
    std::vector<gpulab::KernelConfiguration> configurations[2];  // tiled, tiled on Bt
    // Shared memory is counted on the drawn shape and the timed launches: a shared access costs ~30 us here.
    std::vector<gpulab::SharedReadsSeen> shared;
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
            if (HasFailure()) return;
            configurations[kernel == Kernel::tiled_bt].push_back(gpulab::configuration_of(launches, call_text(kernel, s)));
            figure << (figure.tellp() ? ", " : "") << kernel_name(kernel) << " " << s.name() << " " << fixed(per_mad, 3);
            if (per_mad > worst)
                worst = per_mad, worst_call = call_text(kernel, s), worst_kernel = kernel, worst_shape = s,
                worst_launch = seen;
            // Every element of A and B must be read at least once to compute C: fewer reads mean C did not
            // come from a kernel (a launch that computes on the host reads nothing on the device).
            const double floor = (double(s.m) * s.k + double(s.k) * s.n) / s.multiply_adds();
            if (too_few.empty() && per_mad < floor * (1 - 1e-9))
                too_few = call_text(kernel, s) + " reads A and B " + fixed(per_mad, 3) + " times per multiply-add, fewer than the " +
                          fixed(floor, 3) + " that reading each element of A and B once takes";
        }
    // The reference's naive kernel, counted the same way, only where the advice needs it: counting a naive
    // kernel's reads costs seconds in CPU execution mode (every read of A and B traps).
    std::string naive_note;
    if (worst > bound) {
        naive_at_worst = reads_per_multiply_add(reference(), takes_bt(worst_kernel) ? Kernel::naive_bt : Kernel::naive,
                                                worst_shape);
        if (HasFailure()) return;
        naive_note = " (naive: " + fixed(naive_at_worst, 2) + ")";
    }
    // The launches the speed tests time, counted on a sample of their blocks (timed_technique.h): the bar that
    // proves the shared tile. Register blocking from global memory alone, TM x TN values of C per thread, loads
    // (TM + TN) / (TM TN) per multiply-add: at least 0.1325 within a thread's 255 registers (13 x 18); a 16 x 16
    // shared tile loads 0.125.
    const double timed_bound = section("technique").at("timed_max_loads_per_multiply_add");
    const unsigned long long timed_blocks = section("technique").at("timed_blocks");
    std::ostringstream timed_figure, timed_problems;
    double timed_seconds = 0;
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
            timed_seconds += t.seconds;
            configurations[kernel == Kernel::tiled_bt].push_back(t.configuration);
            if (failed) continue;
            failed = !t.available || t.per_mad > timed_bound;
            if (!t.available) {
                timed_problems << "\n  " << t.describe() << ": not counted: " << t.why << ".";
                continue;
            }
            timed_figure << (timed_figure.tellp() ? ", " : "") << kernel_name(kernel) << " N=" << timed.instance.substr(1)
                         << " " << fixed(t.per_mad, 4);
            shared.push_back({std::string(kernel_name(kernel)) + " " + timed.instance + " (timed)", t.describe(), t.shared,
                              fixed(t.per_mad, 4) + " loads of A and B per multiply-add"});
            record_timed_count(kernel, timed, t);
            testing::Test::RecordProperty("timed_" + std::string(timed_suite(kernel)) + "_" + timed.instance,
                                          t.describe() + ": A " + fixed(t.a_per_mad, 4) + " + B " + fixed(t.b_per_mad, 4) +
                                              " loads per multiply-add, " + fixed(t.seconds, 2) + " s");
            if (t.per_mad > timed_bound)
                timed_problems << "\n  " << t.describe() << " loads " << fixed(t.per_mad, 3)
                               << " elements of A and B from global memory per multiply-add (A " << fixed(t.a_per_mad, 3)
                               << ", B " << fixed(t.b_per_mad, 3) << "; allowed: at most " << fixed(timed_bound, 2) << ").";
        }
    }
    testing::Test::RecordProperty("timed_count_seconds", fixed(timed_seconds, 2));
    const gpulab::SharedReadsBar shared_bar = gpulab::shared_reads_bar(section("technique"));
    const double staged = gpulab::expect_reads_from_tile(
        shared, shared_bar,
        {"your tiled kernel", "its tiles",
         "A tiled kernel reads each value it stages in its tiles once for every row (or column) of C that its block "
         "computes with it: 32 times with 32 x 32 tiles, 16 with 16 x 16 (fewer over a block's first accesses, "
         "counted here, where its first tiles are loaded)"});
    gpulab::record_figure(figure.str() + " reads per multiply-add" + naive_note + "; timed launches: " +
                              timed_figure.str() + " loads per multiply-add (" + fixed(timed_seconds, 1) +
                              " s); shared: " + fixed(staged, 2) + " reads per value staged",
                          "<= " + fixed(bound, 2) + " reads of A and B per multiply-add; timed launches <= " +
                              fixed(timed_bound, 2) + "; >= " + fixed(shared_bar.min_reads_per_write, 1) +
                              " shared reads per value staged");
    GPULAB_EXPECT(timed_problems.str().empty())
        << "The tiled kernels at the sizes the speed tests time, counted in CPU execution mode on a sample of their "
           "blocks (bytes of A and B read, over a window of K chosen for this run):"
        << timed_problems.str()
        << "\n  The multiply-adds must be fed from shared memory: a block that stages T x T tiles of A and B and "
           "multiplies them there loads 2/T per multiply-add (16 x 16: 0.125, 32 x 32: 0.0625). Register blocking "
           "alone, each thread computing TM x TN values of C from A and B in global memory, loads (TM + TN) / (TM TN) "
           "(4 x 4: 0.5), and cannot get under " << fixed(timed_bound, 2) << " in a thread's 255 registers. Every "
           "launch of the tiled kernel must use its tiles, at every size: the timed launch is counted too.";
    for (Kernel kernel : {Kernel::tiled, Kernel::tiled_bt})
        gpulab::expect_one_configuration(configurations[kernel == Kernel::tiled_bt], launch_name(kernel));
    std::string why;
    switch (gpulab::classify_tile_use(worst, naive_at_worst)) {
        case gpulab::TileUse::like_naive:
            why = "That is as often as a naive kernel, which reads A and B from global memory for every multiply-add: "
                  "does the launch run your tiled kernel, and does its inner loop multiply the __shared__ tiles?";
            break;
        case gpulab::TileUse::beyond_naive:
            why = "That is more than a naive kernel (" + fixed(naive_at_worst, 2) + "): your kernel copies tiles into "
                  "shared memory but still reads A or B from global memory in its inner loop. After __syncthreads(), "
                  "multiply a_tile and b_tile.";
            break;
        default: {
            // From the student's own launch: a block that loads the rows of A and the columns of B its tile of C
            // needs, once each, reads every element of A once per block column and of B once per block row.
            const double ideal = double(std::min<int>(worst_launch.grid.x, worst_shape.n)) / worst_shape.n +
                                 double(std::min<int>(worst_launch.grid.y, worst_shape.m)) / worst_shape.m;
            why = "Your launch at " + worst_shape.name() + " has " + std::to_string(worst_launch.grid.x) + " x " +
                  std::to_string(worst_launch.grid.y) + " blocks (x along the columns of C); blocks that each read "
                  "the rows of A and the columns of B of their tile once would read " + fixed(ideal, 3) +
                  " floats per multiply-add" +
                  (ideal > bound ? ", over the bar already: give each block a larger tile of C (16 x 16 tiles read "
                                   "about 0.125 per multiply-add)."
                                 : ". Yours reads more: some operands still come from global memory in the inner "
                                   "loop, or tiles are loaded more than once (a naive kernel reads " +
                                       fixed(naive_at_worst, 2) + ").");
        }
    }
    GPULAB_EXPECT(too_few.empty()) << too_few << ": C was not computed from A and B by a kernel. The tiled launch must "
                                   << "compute C on the GPU, in your tiled kernel.";
    GPULAB_EXPECT(worst <= bound) << worst_call << " reads A and B " << fixed(worst, 3)
                                  << " times per multiply-add (counted exactly in CPU execution mode; allowed: at most "
                                  << fixed(bound, 2) << "). " << why;
}

}  // namespace
