#include "technique_checks.h"

#include "oracle.h"

#include "gpulab/random_size.h"
#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/random.h"
#include "gpulab/read_counter.h"

#include <algorithm>
#include <sstream>

namespace stencil3d_grading {

using gpulab::fixed;

namespace {

// The launch that does the work: the one with the most threads.
const gpulab::RecordedLaunch* main_launch(const std::vector<gpulab::RecordedLaunch>& launches) {
    const gpulab::RecordedLaunch* best = nullptr;
    const auto threads = [](const gpulab::RecordedLaunch& l) {
        return 1ull * l.grid.x * l.grid.y * l.grid.z * l.block.x * l.block.y * l.block.z;
    };
    for (const auto& l : launches)
        if (!best || threads(l) > threads(*best)) best = &l;
    return best;
}

// Checks one precision's launch; returns its figures for the grade table ("1.00 shared/thread, 27.0 z-planes
// a thread"), "" when the launch failed.
template <typename T>
std::string structure(Technique t) {
    const Precision p = precision_of<T>();
    const gpulab::Json& spec = section("technique");
    const Grid3 g = grid_of(spec.at("size"));
    auto rng = gpulab::Rng::for_current_test();
    gpulab::GuardedDeviceArray<T> d_in(g.cells()), d_out(g.cells());
    d_in.upload(oracle::random_field<T>(rng, g));
    const std::string call = call_name(t, p, g);
    gpulab::LaunchRecorder recorder;
    if (!launch_checked(student().of(t).get<T>(), d_in.data(), d_out.data(), g,
                        oracle::narrow<T>(oracle::distinct_coefficients(rng)), call))
        return "";
    const gpulab::RecordedLaunch* launch = main_launch(recorder.launches());
    if (!launch) {
        ADD_FAILURE() << call << " launched no kernel.";
        return "";
    }
    testing::Test::RecordProperty(std::string("launch_") + precision_name(p), launch->describe());
    const double threads = double(launch->block.x) * launch->block.y * launch->block.z;
    const double per_thread = double(launch->shared_bytes()) / sizeof(T) / threads;
    const int planes = g.nz - 2;
    const double threads_in_z = double(launch->grid.z) * launch->block.z;
    const double planes_per_thread = planes / threads_in_z;
    const bool gpu = !gpulab::device_facts().emulated;  // registers and spills exist only in a GPU build
    std::ostringstream figure;
    figure << precision_name(p) << ": " << launch->shared_bytes() << " B shared for " << threads << " threads ("
           << fixed(per_thread, 2) << " values each), ";
    if (gpu) figure << launch->registers << " regs, " << launch->local_bytes << " B local, ";
    figure << fixed(planes_per_thread, 1) << " z-planes a thread";
    testing::Test::RecordProperty(std::string("structure_") + precision_name(p), figure.str());
    const std::string seen = call + " launched " + launch->describe() + ": " +
                             fixed(per_thread, 2) +
                             " shared values per thread, " + fixed(planes_per_thread, 1) + " z-plane(s) per thread";
    const double min_coarsening = spec.at("min_planes_per_thread");
    switch (t) {
        case Technique::naive:
            GPULAB_EXPECT(launch->shared_bytes() == 0)
                << seen << ". The naive kernel reads every neighbour from global memory: it needs no shared memory.";
            break;
        case Technique::tiled:
            GPULAB_EXPECT(per_thread >= spec.at("tiled_min_shared_per_thread").get<double>())
                << seen << ". A tiled kernel's block copies its input tile, IN_TILE^3 values for IN_TILE^3 threads "
                << "(or its output tile plus the halo), into a __shared__ array: about one value per thread or more. "
                << (launch->shared_bytes() == 0 ? "Yours declares no shared memory at all: is this the naive kernel?"
                                                : "Yours is much smaller: does the tile cover the whole block?");
            break;
        case Technique::coarsened:
            GPULAB_EXPECT(per_thread >= spec.at("coarsened_min_shared_per_thread").get<double>())
                << seen << ". A kernel coarsened in z keeps three planes of its IN_TILE x IN_TILE input tile in shared "
                << "memory (below, current, above): three values per thread of its 2D block. "
                << (per_thread < 1.5 ? "Yours has about one: are the planes below and above in registers (that is lab "
                                       "06's register tiling)?"
                                     : "Yours has fewer than three.");
            GPULAB_EXPECT(planes_per_thread >= min_coarsening)
                << seen << ". Coarsening in z means each block walks a column of planes: a 2D block, and a grid with "
                << "far fewer threads along z than there are planes (" << planes << " here; at least "
                << fixed(min_coarsening, 0) << " planes per thread expected).";
            break;
        case Technique::register_tiled:
            GPULAB_EXPECT(per_thread >= spec.at("tiled_min_shared_per_thread").get<double>() &&
                          per_thread < spec.at("coarsened_min_shared_per_thread").get<double>())
                << seen << ". Register tiling keeps only the current plane in shared memory (IN_TILE^2 values, one per "
                << "thread; two for a double-buffered plane); the planes below and above are each thread's own "
                << "registers. "
                << (per_thread >= 2.5 ? "Yours keeps about three planes in shared memory: that is lab 05's coarsened "
                                        "kernel."
                                      : "Yours keeps less than one value per thread: where does the current plane live?");
            GPULAB_EXPECT(!gpu || launch->local_bytes == 0)
                << seen << ", and " << launch->local_bytes << " bytes of local memory per thread: the compiler put "
                << "values you meant for registers into (slow, off-chip) local memory. That happens to an array "
                   "indexed with a value known only at run time (e.g. planes[k] with a variable k): use named "
                   "variables (below, here, above) and move them with plain assignments.";
            GPULAB_EXPECT(planes_per_thread >= min_coarsening)
                << seen << ". Register tiling builds on coarsening in z: each block walks a column of planes (a grid "
                << "with far fewer threads along z than the " << planes << " planes).";
            break;
    }
    return fixed(per_thread, 2) + " shared/thread, " + fixed(planes_per_thread, 1) + " z-planes a thread";
}

// What a kernel launched like `l` would read per interior cell of `g` if each block loaded its own cells and
// the one-cell halo around them once: along each axis the interior is shared among the blocks along it (for a
// kernel coarsened in z, the chunks of planes), and each block adds two halo cells (planes) to its share.
double tile_reads_per_cell(const gpulab::RecordedLaunch& l, const Grid3& g) {
    const double blocks[3] = {double(l.grid.x), double(l.grid.y), double(l.grid.z)};
    const double cells[3] = {double(g.nx - 2), double(g.ny - 2), double(g.nz - 2)};
    double reads = 1;
    for (int a = 0; a < 3; ++a) reads *= 1 + 2 * std::min(blocks[a], cells[a]) / cells[a];
    return reads;
}

// The launch that covers the grid: the one with the most blocks.
gpulab::RecordedLaunch widest_launch(const std::vector<gpulab::RecordedLaunch>& launches) {
    gpulab::RecordedLaunch widest;
    const auto blocks = [](const gpulab::RecordedLaunch& l) { return 1ull * l.grid.x * l.grid.y * l.grid.z; };
    for (const auto& l : launches)
        if (blocks(l) > blocks(widest)) widest = l;
    return widest;
}

// The advice for a kernel that reads fewer times than the naive one but more than the bar allows, from its
// own launch: whether its tiles are too small, or its tiles are fine and some values come from global memory.
std::string tiling_advice(const gpulab::RecordedLaunch& l, const Grid3& g, double bound) {
    const double ideal = tile_reads_per_cell(l, g);
    std::ostringstream out;
    out << "Your launch at " << g.name() << " has " << l.grid.x << " x " << l.grid.y << " x " << l.grid.z
        << " blocks; if each block loaded its own cells and the one-cell halo around them once, that would be "
        << fixed(ideal, 2) << " reads per cell";
    if (ideal > bound)
        out << ", over the bar already: give each block more cells (a larger tile, or more planes per block).";
    else
        out << ". Yours reads more: some neighbours still come from global memory instead of shared memory (or "
               "registers), or blocks load cells more than once.";
    return out.str();
}

template <typename T>
void reads(Technique t, Precision p, double* worst, std::string* figure, std::string* worst_call,
           std::string* worst_advice, double bound) {
    const gpulab::Json& spec = section("technique").at("reads");
    std::vector<Grid3> grids;
    for (const gpulab::Json& size : spec.at("sizes")) grids.push_back(grid_of(size));
    const std::vector<int> drawn = gpulab::random_size_for_run(spec.at("random"));  // and one nobody can predict
    grids.push_back({drawn[0], drawn[1], drawn[2]});
    for (const Grid3& g : grids) {
        auto rng = gpulab::Rng::for_current_test();
        const std::vector<T> in = oracle::random_field<T>(rng, g);
        const Coeffs<double> c = oracle::distinct_coefficients(rng);
        gpulab::GuardedDeviceArray<T> d_in(g.cells()), d_out(g.cells());
        d_in.upload(in);
        const std::string call = call_name(t, p, g);
        gpulab::LaunchRecorder recorder;  // CPU execution mode: the launch's grid, for the advice
        const gpulab::ReadCount count = gpulab::count_device_reads(d_in.data(), g.cells() * sizeof(T), [&] {
            student().of(t).get<T>()(d_in.data(), d_out.data(), g.nx, g.ny, g.nz, oracle::narrow<T>(c));
            gpulab::check_student_launch(call);
        });
        GPULAB_ASSERT(count.available) << "grader error: could not count the reads of " << call << ": " << count.why;
        if (!inspect_output(d_out.download(), in, g, c, tolerance_of(p), call).ok())
            GTEST_SKIP() << call << " does not compute this case right yet (its MatchesOracle test says where); how it "
                         << "reads its input is judged once it does.";
        GPULAB_ASSERT(count.host_bytes_read == 0)
            << call << " copied " << count.host_bytes_read << " bytes out of the input with cudaMemcpy while it ran.";
        const double per_cell = double(count.reads) / double(g.interior_cells());
        if (per_cell > *worst) {
            *worst = per_cell, *worst_call = call;
            *worst_advice = tiling_advice(widest_launch(recorder.launches()), g, bound);
        }
        *figure += (figure->empty() ? "" : ", ") + fixed(per_cell, 2) + " at " + g.name() + " " + precision_name(p);
    }
}

}  // namespace

void check_structure(Technique t) {
    GPULAB_REQUIRE_DEVICE();
    GPULAB_ASSERT(gpulab::launch_recording_supported()) << "grader error: launches cannot be recorded here";
    const std::string figure = structure<float>(t);
    structure<double>(t);
    // CPU execution mode sees the launch and its shared memory, not what a GPU build does with registers: a
    // register-tiled kernel whose structure is right here is judged on a GPU, where spills show.
    if (t == Technique::register_tiled && gpulab::device_facts().emulated && !testing::Test::HasFailure())
        GTEST_SKIP() << "the launch and its shared memory are right; whether the registers spill to local memory "
                        "can only be read from a GPU build, so this test is graded on a GPU";
    const gpulab::Json& spec = section("technique");
    const std::string planes = ", >= " + fixed(spec.at("min_planes_per_thread").get<double>(), 0) + " z-planes a thread";
    const std::string shared_min = fixed(spec.at("tiled_min_shared_per_thread").get<double>(), 1);
    const std::string shared_coarse = fixed(spec.at("coarsened_min_shared_per_thread").get<double>(), 1);
    const std::string bar[] = {"no shared memory", ">= " + shared_min + " shared/thread",
                               ">= " + shared_coarse + " shared/thread" + planes,
                               shared_min + " to " + shared_coarse + " shared/thread" + planes + ", no spills"};
    gpulab::record_figure((figure.empty() ? std::string("launch failed") : figure) + " (float)", bar[int(t)]);
}

void check_reads(Technique t) {
    GPULAB_REQUIRE_DEVICE();
    GPULAB_REQUIRE_READ_COUNTER();
    const double bound = section("technique").at("reads").at("max_per_cell");
    double worst = -1;
    std::string figure, worst_call, advice;
    reads<float>(t, Precision::f32, &worst, &figure, &worst_call, &advice, bound);
    if (testing::Test::IsSkipped() || testing::Test::HasFatalFailure()) return;
    reads<double>(t, Precision::f64, &worst, &figure, &worst_call, &advice, bound);
    if (testing::Test::IsSkipped() || testing::Test::HasFatalFailure()) return;
    gpulab::record_figure(figure + " reads/cell (naive: 7)", "<= " + fixed(bound, 1) + " global reads of the input per cell");
    std::ostringstream why;
    const gpulab::TileUse use = gpulab::classify_tile_use(worst, 7);
    if (use == gpulab::TileUse::like_naive)
        why << "That is as often as the naive kernel, which reads all 7 values of every cell's stencil from global "
               "memory: does " << launcher_name(t) << " launch your " << technique_name(t)
            << " kernel, and does that kernel compute from shared memory?";
    else if (use == gpulab::TileUse::beyond_naive)
        why << "That is more than the naive kernel's 7: your kernel copies its tile into shared memory but still reads "
               "neighbours from global memory. After __syncthreads(), take them from the __shared__ array"
            << (t == Technique::register_tiled ? " (x and y neighbours) and your registers (z neighbours)." : ".");
    else
        why << advice;
    GPULAB_EXPECT(worst <= bound) << worst_call << " reads its input " << fixed(worst, 2)
                                  << " times per interior cell (counted exactly in CPU execution mode; allowed: at most "
                                  << fixed(bound, 1) << "). " << why.str();
}

}  // namespace stencil3d_grading
