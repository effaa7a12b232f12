#include "technique_checks.h"

#include "oracle.h"
#include "timed_technique.h"

#include "gpulab/random_size.h"
#include "gpulab/counted_work.h"
#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/random.h"
#include "gpulab/read_counter.h"
#include "gpulab/shared_reads.h"

#include <algorithm>
#include <cmath>
#include <map>
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
// a thread"), "" when the launch failed. `config` gets the launch's configuration.
template <typename T>
std::string structure(Technique t, gpulab::KernelConfiguration* config) {
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
    *config = gpulab::configuration_of(recorder.launches(), call);
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

// The worst reads per cell seen so far, where, and the advice for it; the figure for the grade table.
struct ReadsSeen {
    double worst = -1;
    std::string call, advice, figure;
    void add(double per_cell, const std::string& where, const std::string& label, const std::string& tiling) {
        std::string key = "reads_per_cell_" + label;
        std::replace(key.begin(), key.end(), ' ', '_');
        testing::Test::RecordProperty(key, fixed(per_cell, 2));
        if (per_cell > worst) worst = per_cell, call = where, advice = tiling;
        figure += (figure.empty() ? "" : ", ") + fixed(per_cell, 2) + " at " + label;
    }
};

// The configurations each precision's launches ran, and the cells a full block wrote on the first small grid
// that had full blocks, for one comparison at the end; and each count's shared reads (gpulab/shared_reads.h).
struct SeenLaunches {
    std::map<Precision, std::vector<gpulab::KernelConfiguration>> configurations;
    std::map<Precision, std::pair<double, std::string>> cells_per_block;  // cells, where
    std::vector<gpulab::SharedReadsSeen> shared;
};

std::string global_words(double per_cell) { return fixed(per_cell, 2) + " reads of the input per cell"; }

// What each technique implies for its shared-memory reads, from the reference kernels' own counts.
gpulab::SharedReadsWording shared_wording(Technique t) {
    switch (t) {
        case Technique::tiled:
            return {"your tiled kernel", "its tile",
                    "A tiled kernel reads the 7 values each cell needs (the cell and its six neighbours) from its tile, "
                    "and stages about 2.4 values per cell there with 8 x 8 x 8 blocks (its block's cells and their "
                    "halo): about 3 reads per value staged"};
        case Technique::coarsened:
            return {"your coarsened kernel", "its three shared planes",
                    "A coarsened kernel reads the 7 values each cell needs from its three shared planes (below, "
                    "current, above), and stages about 1.1 values per cell in each plane it loads (with 32 x 32 "
                    "blocks): about 2.7 reads per value staged over a whole column when the planes move down by "
                    "copying, more when only pointers to them rotate; about 2 over a block's first accesses, which "
                    "are what is counted here (its first planes are written before they are read)"};
        case Technique::register_tiled:
            return {"your register-tiled kernel", "its shared plane",
                    "A register-tiled kernel reads each cell's four x and y neighbours from its shared plane (the cell "
                    "and its z neighbours are the thread's own registers), and stages about 1.1 values per cell "
                    "there with 32 x 32 blocks: about 3.5 reads per value staged over a whole column, about 2.6 over "
                    "a block's first accesses, which are what is counted here"};
        case Technique::naive: break;
    }
    return {"your kernel", "its shared memory", "A naive kernel stages nothing in shared memory"};
}

// The small grids: lab.json technique.reads.sizes and one drawn for the run, every block counted. Bytes, not load
// instructions: how a compiler merges loads changes nothing.
template <typename T>
void small_grid_reads(Technique t, ReadsSeen* seen, SeenLaunches* launches, double bound,
                      const gpulab::SharedReadsBar& bar) {
    const Precision p = precision_of<T>();
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
        gpulab::LaunchRecorder recorder;  // the launch's configuration, and its grid for the advice
        const gpulab::AccessCount count = gpulab::count_device_accesses(
            {{d_in.data(), g.cells() * sizeof(T)}, {d_out.data(), g.cells() * sizeof(T)}}, [&] {
                student().of(t).get<T>()(d_in.data(), d_out.data(), g.nx, g.ny, g.nz, oracle::narrow<T>(c));
                gpulab::check_student_launch(call);
            });
        GPULAB_ASSERT(count.available) << "grader error: could not count the reads of " << call << ": " << count.why;
        if (!inspect_output(d_out.download(), in, g, c, tolerance_of(p), call).ok())
            GTEST_SKIP() << call << " does not compute this case right yet (its MatchesOracle test says where); how it "
                         << "reads its input is judged once it does.";
        const gpulab::RangeCount& read = count.ranges.at(0);
        GPULAB_ASSERT(read.host_bytes_read == 0)
            << call << " copied " << read.host_bytes_read << " bytes out of the input with cudaMemcpy while it ran.";
        // Its output is right, so every interior cell was written: per byte written is per interior cell.
        const double written = double(std::max<unsigned long long>(count.ranges.at(1).bytes_written, 1));
        seen->add(double(read.bytes_read) / written, call, g.name() + " " + precision_name(p),
                  tiling_advice(widest_launch(recorder.launches()), g, bound));
        launches->configurations[p].push_back(gpulab::configuration_of(recorder.launches(), call));
        const std::vector<double> cells = cells_per_full_block(count, 1, sizeof(T));
        if (cells.size() == 1 && !launches->cells_per_block.count(p)) launches->cells_per_block[p] = {cells.front(), call};
        // Its shared memory, in a few of its blocks: a second run (its output was checked above).
        const gpulab::SharedReads shared = gpulab::count_shared_sample(
            [&] { student().of(t).get<T>()(d_in.data(), d_out.data(), g.nx, g.ny, g.nz, oracle::narrow<T>(c)); }, bar,
            count.launches);
        launches->shared.push_back({g.name() + " " + precision_name(p), call, shared,
                                    global_words(double(read.bytes_read) / written)});
    }
}

// CPU execution mode's count of a timed launch, per output cell, for the GPU's comparison of its drawn timed
// samples (gpulab/counted_work.h).
void record_timed_count(Technique t, const gpulab::GeometryCheck& check, const TimedReads& r) {
    gpulab::CountedWork w;
    w.suite = check.suite, w.instance = check.instance, w.call = r.where;
    w.kernel = std::string("your ") + technique_name(t) + " kernel";
    w.element = "input";
    w.per = "cell";
    w.outputs = double(r.g.interior_cells());
    w.element_bytes = r.element_bytes;
    w.global_per_output = r.all_per_cell;
    w.shared_per_output = r.shared_per_cell;
    // Only where the per-cell figure is not there (its blocks counted up to a budget) and the kernel staged something.
    if (std::isnan(w.shared_per_output) && r.shared.counted && r.shared.bytes_written > 0)
        w.shared_per_staged = r.shared.reads_per_write();
    gpulab::record_counted_work({w});
}

// The launches the speed test times, a sample of their blocks counted (timed_technique.h).
void timed_reads(Technique t, ReadsSeen* seen, SeenLaunches* launches, double* seconds, double bound) {
    for (Precision p : {Precision::f32, Precision::f64}) {
        for (const gpulab::GeometryCheck& check : timed_launches_of(t, p)) {
            TimedReads r;
            try {
                r = count_timed_reads(t, check);
            } catch (const std::exception& e) {
                GPULAB_EXPECT(false) << check.call << ", the launch " << speed_test_of(t) << " times, failed when its "
                                     << "reads were counted (a sample of its blocks, in CPU execution mode): " << e.what();
                continue;
            }
            *seconds += r.seconds;
            GPULAB_ASSERT(r.why.empty()) << "grader error: could not count the timed launch " << r.where << ": " << r.why;
            launches->configurations[p].push_back(r.config);
            GPULAB_EXPECT(r.host_bytes_read == 0)
                << r.where << " copied " << r.host_bytes_read << " bytes out of the input with cudaMemcpy while it ran.";
            GPULAB_EXPECT(r.per_cell >= 0)
                << r.where << " wrote nothing to its output in the blocks counted (corner, edge and inner blocks of its "
                << "grid). Every block of the " << technique_name(t) << " kernel computes its part of the output, at "
                << "every size: does " << launcher_name(t) << " launch its kernel over the whole grid at this size?"
                << (r.spoiled.empty() ? "" : " (The count reports: " + r.spoiled + ")");
            if (r.per_cell < 0) continue;
            seen->add(r.per_cell, r.where, r.size + " (timed)", tiling_advice(widest_launch(r.launches), r.g, bound));
            launches->shared.push_back({r.size + " (timed)", r.where, r.shared, global_words(r.per_cell)});
            record_timed_count(t, check, r);
            const auto small = launches->cells_per_block.find(p);
            if (small == launches->cells_per_block.end()) continue;
            for (double cells : r.cells_per_full_block) {
                GPULAB_EXPECT(cells == small->second.first)
                    << r.where << ": each of its full blocks wrote " << fixed(cells, 0) << " cells; at "
                    << small->second.second << " each full block wrote " << fixed(small->second.first, 0)
                    << ". Same kernel, block and shared memory, but a block does other work at the size that is "
                    << "timed. The technique is judged on one configuration at every size: each block computes the "
                       "same tile of the output at every size.";
                if (cells != small->second.first) break;
            }
        }
    }
}

}  // namespace

void check_structure(Technique t) {
    GPULAB_REQUIRE_DEVICE();
    GPULAB_ASSERT(gpulab::launch_recording_supported()) << "grader error: launches cannot be recorded here";
    gpulab::KernelConfiguration seen[2];
    const std::string figure = structure<float>(t, &seen[0]);
    structure<double>(t, &seen[1]);
    // The launch the speed test times must run the configuration judged here (one kernel, block and shared memory
    // at every size): on a GPU from a dry run of it, in CPU execution mode from one of its blocks.
    for (Precision p : {Precision::f32, Precision::f64}) {
        std::vector<gpulab::KernelConfiguration> configs{seen[int(p)]};
        for (const gpulab::GeometryCheck& check : timed_launches_of(t, p)) {
            try {
                configs.push_back(timed_configuration(t, check));
            } catch (const std::exception& e) {
                GPULAB_EXPECT(false) << check.call << ", the launch " << speed_test_of(t) << " times, failed when its "
                                     << "configuration was read: " << e.what();
            }
        }
        gpulab::expect_one_configuration(configs, launcher_name(t));
    }
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
    const gpulab::SharedReadsBar bar = gpulab::shared_reads_bar(section("technique"));
    ReadsSeen seen;
    SeenLaunches launches;
    small_grid_reads<float>(t, &seen, &launches, bound, bar);
    if (testing::Test::IsSkipped() || testing::Test::HasFatalFailure()) return;
    small_grid_reads<double>(t, &seen, &launches, bound, bar);
    if (testing::Test::IsSkipped() || testing::Test::HasFatalFailure()) return;
    double seconds = 0;
    timed_reads(t, &seen, &launches, &seconds, bound);
    testing::Test::RecordProperty("timed_count_seconds", fixed(seconds, 2));
    if (testing::Test::HasFatalFailure()) return;
    for (const auto& [precision, configs] : launches.configurations) gpulab::expect_one_configuration(configs, launcher_name(t));
    const double staged = gpulab::expect_reads_from_tile(launches.shared, bar, shared_wording(t));
    gpulab::record_figure(seen.figure + " reads/cell (naive: 7); shared: " + fixed(staged, 2) + " reads per value staged",
                          "<= " + fixed(bound, 1) + " bytes of the input read per byte written, timed launch included; >= " +
                              fixed(bar.min_reads_per_write, 1) + " shared reads per value staged");
    if (seen.worst < 0) return;  // nothing counted: the failures above say why
    std::ostringstream why;
    const gpulab::TileUse use = gpulab::classify_tile_use(seen.worst, 7);
    if (use == gpulab::TileUse::like_naive)
        why << "That is as often as the naive kernel, which reads all 7 values of every cell's stencil from global "
               "memory: does " << launcher_name(t) << " launch your " << technique_name(t)
            << " kernel at this size, and does that kernel compute from shared memory here too?";
    else if (use == gpulab::TileUse::beyond_naive)
        why << "That is more than the naive kernel's 7: your kernel copies its tile into shared memory but still reads "
               "neighbours from global memory. After __syncthreads(), take them from the __shared__ array"
            << (t == Technique::register_tiled ? " (x and y neighbours) and your registers (z neighbours)." : ".");
    else
        why << seen.advice;
    GPULAB_EXPECT(seen.worst <= bound)
        << seen.call << " reads its input " << fixed(seen.worst, 2) << " times per interior cell (bytes of the input "
        << "read per byte written, counted exactly in CPU execution mode on the small grids and on a sample of the "
        << "blocks of each launch the speed test times; allowed: at most " << fixed(bound, 1) << " at every size). "
        << why.str();
}

}  // namespace stencil3d_grading
