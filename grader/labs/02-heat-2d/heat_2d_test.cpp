// The grader of lab 02 (heat on an insulated square). Points, sizes and tolerances come from
// labs/02-heat-2d/lab.json; the handout describes every test by the same name.
#include "api.h"
#include "oracle.h"

#include "gpulab/launch_deadline.h"
#include "gpulab/launch_geometry.h"
#include "gpulab/random_size.h"
#include "gpulab/compare.h"
#include "gpulab/cuda_check.h"
#include "gpulab/expert.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/image.h"
#include "gpulab/lab_config.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/plot.h"
#include "gpulab/random.h"
#include "gpulab/roofline.h"
#include "gpulab/read_counter.h"
#include "gpulab/speed_report.h"
#include "gpulab/time_step_checks.h"
#include "gpulab/timed_field.h"
#include "gpulab/timing.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <numeric>
#include <sstream>

namespace {

using gpulab::config_at;
using gpulab::fixed;
using gpulab::GuardedDeviceArray;
using gpulab::Json;
using gpulab::num;
using gpulab::first_difference;
using gpulab::same_bits;
using gpulab::sci;
using heat_2d_oracle::Grid;
namespace oracle = heat_2d_oracle;

const char* const kLab = "02-heat-2d";

const Heat2dApi& student() { return gpulab::lab_api<Heat2dApi>(gpulab::Role::student, kLab); }
const Heat2dApi& reference() { return gpulab::lab_api<Heat2dApi>(gpulab::Role::reference, kLab); }
const Json& section(const char* name) { return config_at(gpulab::lab_config(), name); }

// ---- Small helpers ----------------------------------------------------------------------------------

const char* kernel_name(int kernel) { return kernel == kTiledKernel ? "tiled" : "naive"; }
const char* launcher_name(int kernel) { return kernel == kTiledKernel ? "launch_step_tiled" : "launch_step_naive"; }

using StepFn = void (*)(const float*, float*, int, int, float);
StepFn step_of(const Heat2dApi& api, int kernel) {
    return kernel == kTiledKernel ? api.launch_step_tiled : api.launch_step_naive;
}

std::string size_name(const Grid& g) { return std::to_string(g.nx) + "x" + std::to_string(g.ny); }
std::string cell_name(int i, int j) { return "(" + std::to_string(i) + ", " + std::to_string(j) + ")"; }

std::vector<Grid> grids_of(const Json& list) {
    std::vector<Grid> grids;
    for (const Json& item : list) grids.push_back({item.at(0).get<int>(), item.at(1).get<int>()});
    return grids;
}

// Random temperatures, nonzero everywhere, ghost ring and corners included: a neighbour read from
// the wrong place, or a halo cell read as 0, must show.
std::vector<float> random_field(gpulab::Rng& rng, const Grid& g) { return rng.uniform_floats(g.cells(), 0.5f, 2.0f); }

// The same with every edge ghost already equal to its interior neighbour (a start that satisfies
// the insulated walls, for the conservation checks).
std::vector<float> random_insulated_field(gpulab::Rng& rng, const Grid& g) {
    std::vector<float> f = random_field(rng, g);
    oracle::apply_walls(f, g);
    return f;
}

template <typename T>
std::vector<T> interior_of(const std::vector<T>& f, const Grid& g) {
    std::vector<T> inner;
    inner.reserve(std::size_t(g.nx) * std::size_t(g.ny));
    for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) inner.push_back(f[g.at(i, j)]);
    return inner;
}

// The oracle's step on the interior only, straight from the float input (no full-size copies:
// the speed tests check 8192 x 8192 grids).
std::vector<double> expected_interior(const std::vector<float>& in, const Grid& g, double r) {
    std::vector<double> out;
    out.reserve(std::size_t(g.nx) * std::size_t(g.ny));
    const std::size_t p = std::size_t(g.pitch());
    for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) {
            const std::size_t c = g.at(i, j);
            const double centre = in[c];
            out.push_back(centre + r * (double(in[c - 1]) + in[c + 1] + in[c - p] + in[c + p] - 4.0 * centre));
        }
    return out;
}

gpulab::Shape interior_shape(const Grid& g) {
    gpulab::Shape shape;
    shape.nx = std::size_t(g.nx);
    shape.ny = std::size_t(g.ny);
    shape.origin_x = 1;
    shape.origin_y = 1;
    return shape;
}

// A signalling NaN with a payload of its own: arithmetic never produces it (it yields quiet NaNs),
// so only a kernel that never wrote a cell leaves it there.
float sentinel() {
    const std::uint32_t bits = 0x7FBADBADu;
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// NaNs a computation produced, made distinct from the grader's poison (all bits set), so the
// comparator reports them as wrong values rather than as cells never written.
std::vector<float> requiet(std::vector<float> f) {
    for (float& v : f)
        if (std::isnan(v)) v = std::numeric_limits<float>::quiet_NaN();
    return f;
}

// A 2D reading of where the wrong cells are, for a step kernel: on the edges of tiles of some size
// (a halo problem), or in the last columns or rows of a grid that does not fill whole blocks.
std::string tile_pattern(const gpulab::Comparison& c, const Grid& g) {
    if (c.wrong < 2 || c.wrong == c.shape.cells()) return "";
    std::vector<std::pair<int, int>> cells;  // 0-based within the interior
    for (std::size_t index : c.wrong_indices) cells.push_back({int(index % g.nx), int(index / g.nx)});
    const auto on_edge = [](int v, int period, int extent) {
        return period > 0 && (v % period == 0 || v % period == period - 1 || v == extent - 1);
    };
    // The largest tile (px, py) whose edges hold every wrong cell, where those edges are a minority of
    // the grid (else the pattern says nothing).
    for (int px : {256, 128, 64, 32, 16, 8, 4, 0})
        for (int py : {256, 128, 64, 32, 16, 8, 4, 0}) {
            if ((px == 0 && py == 0) || px >= g.nx || py >= g.ny) continue;
            const bool all = std::all_of(cells.begin(), cells.end(), [&](const std::pair<int, int>& cell) {
                return on_edge(cell.first, px, g.nx) || on_edge(cell.second, py, g.ny);
            });
            if (!all) continue;
            std::size_t edge_cells = 0;
            for (int y = 0; y < g.ny; ++y)
                for (int x = 0; x < g.nx; ++x) edge_cells += on_edge(x, px, g.nx) || on_edge(y, py, g.ny);
            if (2 * edge_cells > c.shape.cells()) continue;
            std::ostringstream out;
            out << "every wrong cell lies on the edge of a ";
            if (px && py) out << px << " x " << py << " tile";
            else if (px) out << px << "-column-wide strip";
            else out << py << "-row-high strip";
            out << " (its first or last column or row, counted from cell (1, 1)). That is where a tile's "
                   "halo is read: a halo cell not loaded, loaded from the wrong place, or read before the "
                   "thread that loads it got there (a missing __syncthreads()).";
            return out.str();
        }
    return "";
}

// Runs the step again on an output filled with the sentinel instead of NaN and returns, per interior
// cell, whether the kernel wrote it: tells a cell never written from one the kernel wrote a NaN into
// (a NaN read from a tile cell nobody filled, for instance).
std::vector<bool> written_cells(StepFn step, const GuardedDeviceArray<float>& d_in, const Grid& g, float r) {
    const float untouched = sentinel();
    GuardedDeviceArray<float> d_out(g.cells());
    d_out.upload(std::vector<float>(g.cells(), untouched));
    step(d_in.data(), d_out.data(), g.nx, g.ny, r);
    gpulab::check_student_launch("the step (run again to tell unwritten cells from computed NaNs)");
    const std::vector<float> out = interior_of(d_out.download(), g);
    std::vector<bool> written(out.size());
    for (std::size_t c = 0; c < out.size(); ++c) written[c] = !same_bits(out[c], untouched);
    return written;
}

std::string where(const Grid& g, long index) {
    if (index < 0) return "nowhere";
    return "cell " + cell_name(int(index % g.pitch()), int(index / g.pitch()));
}

// "3 cells, the first at (2, 0)" when a step wrote ghost cells of an output poisoned beforehand, else "".
std::string ghost_writes(const std::vector<float>& whole, const Grid& g) {
    std::size_t count = 0;
    std::string first;
    for (int j = 0; j <= g.ny + 1; ++j)
        for (int i = 0; i <= g.nx + 1; ++i)
            if (!g.interior(i, j) && !gpulab::is_poison(whole[g.at(i, j)]) && count++ == 0) first = cell_name(i, j);
    if (count == 0) return "";
    return std::to_string(count) + (count == 1 ? " cell, at " : " cells, the first at ") + first;
}

// ---- NaiveStep / TiledStep -------------------------------------------------------------------------

struct StepCase {
    Grid g;
    double r;
};

std::vector<StepCase> step_cases() {
    std::vector<StepCase> cases;
    for (const Grid& g : grids_of(section("step").at("sizes")))
        for (double r : section("step").at("ratios")) cases.push_back({g, r});
    return cases;
}

std::string step_case_name(const testing::TestParamInfo<StepCase>& info) {
    return size_name(info.param.g) + "_r" + gpulab::name_safe(info.param.r);
}

void check_step(int kernel, const StepCase& param) {
    const Grid g = param.g;
    const float r = float(param.r);
    const gpulab::Tolerance tol{section("step").at("rel_tol"), section("step").at("abs_tol")};
    // The step must change cells by far more than the tolerance, or a kernel that copies its input
    // would pass. On a tiny grid a random draw can be nearly flat: draw again.
    auto rng = gpulab::Rng::for_current_test();
    std::vector<float> in;
    std::vector<double> expected;
    double largest_change = 0;
    for (int draw = 0; draw < 20 && !(largest_change > 100 * tol.allowed(2.0)); ++draw) {
        in = random_field(rng, g);
        expected = expected_interior(in, g, double(r));
        largest_change = 0;
        for (int j = 1; j <= g.ny; ++j)
            for (int i = 1; i <= g.nx; ++i)
                largest_change = std::max(
                    largest_change, std::fabs(expected[std::size_t(j - 1) * g.nx + (i - 1)] - in[g.at(i, j)]));
    }
    GPULAB_ASSERT(largest_change > 100 * tol.allowed(2.0)) << "grader error: the random input is too smooth";
    GuardedDeviceArray<float> d_in(g.cells()), d_out(g.cells());
    d_in.upload(in);

    const StepFn step = step_of(student(), kernel);
    step(d_in.data(), d_out.data(), g.nx, g.ny, r);
    const std::string call = std::string(launcher_name(kernel)) + "(nx=" + std::to_string(g.nx) +
                             ", ny=" + std::to_string(g.ny) + ", r=" + fixed(r, 2) + ")";
    gpulab::check_student_launch(call);

    const std::vector<float> whole = d_out.download();
    const std::vector<float> out = interior_of(whole, g);
    gpulab::Comparison result = gpulab::compare(out, expected, interior_shape(g), tol);
    std::size_t computed_nans = 0;
    if (result.unwritten > 0) {
        // Some of the poison-looking cells may be NaNs the kernel computed: count those as wrong
        // values, not as cells never written, so the explanation below points the right way.
        const std::vector<bool> written = written_cells(step, d_in, g, r);
        std::vector<float> adjusted = out;
        for (std::size_t c = 0; c < adjusted.size(); ++c)
            if (gpulab::is_poison(adjusted[c]) && written[c]) {
                adjusted[c] = std::numeric_limits<float>::quiet_NaN();
                ++computed_nans;
            }
        if (computed_nans) result = gpulab::compare(adjusted, expected, interior_shape(g), tol);
    }
    gpulab::record_figure(result.figure(), "per cell " + sci(tol.abs, 0) + " + " + sci(tol.rel, 0) + "|f|");
    if (result.ok()) return;

    std::ostringstream advice;
    if (const std::string pattern = tile_pattern(result, g); !pattern.empty()) advice << "  In 2D: " << pattern << "\n";
    if (const std::string ghosts = ghost_writes(whole, g); !ghosts.empty())
        advice << "  Your kernel also wrote into the ghost ring of `out` (" << ghosts << "), which the step must not touch: "
               << "its writes land in the wrong places. Cell (i, j) is at j * (nx + 2) + i, and the interior is "
                  "1 <= i <= nx, 1 <= j <= ny.\n";
    if (computed_nans)
        advice << "  " << computed_nans << " cell(s) hold a NaN that your kernel computed (\"got nan\"). "
               << (kernel == kTiledKernel
                       ? "A tile cell that no thread filled holds garbage (NaN in CPU execution mode): look for halo "
                         "cells that are never loaded, and for reads of the tile before __syncthreads().\n"
                       : "Does the kernel read outside the array, or the output instead of the input?\n");
    if (kernel == kTiledKernel) {
        // Does the same student's naive kernel get this case right? Then the tile is the problem.
        GuardedDeviceArray<float> d_naive(g.cells());
        student().launch_step_naive(d_in.data(), d_naive.data(), g.nx, g.ny, r);
        if (cudaDeviceSynchronize() == cudaSuccess && cudaGetLastError() == cudaSuccess &&
            gpulab::compare(interior_of(d_naive.download(), g), expected, interior_shape(g), tol).ok())
            advice << "  Your naive kernel gets this case right, so the formula is fine: the difference is in how "
                      "ftcs_tiled fills its shared tile (halo cells, tiles cut short at the grid's right and top "
                      "edges) and whether every thread waits (__syncthreads()) before reading it.\n";
    }
    ADD_FAILURE() << result.explain(call) << advice.str();
}

class NaiveStep : public testing::TestWithParam<StepCase> {};
class TiledStep : public testing::TestWithParam<StepCase> {};

// Both step kernels at the timed size, in a dry run (gpulab/launch_geometry.h): instances of their MatchesOracle.
const bool kTimedGeometry = gpulab::add_geometry_checks([] {
    const int N = section("speed").at("N");
    const Grid g{N, N};
    std::vector<gpulab::GeometryCheck> checks;
    for (int kernel : {kNaiveKernel, kTiledKernel})
        checks.push_back({kernel == kTiledKernel ? "TiledStep" : "NaiveStep", "MatchesOracle", size_name(g),
                          std::string(launcher_name(kernel)) + " at " + size_name(g),
                          {g.cells() * sizeof(float), g.cells() * sizeof(float)}, [kernel, N](const std::vector<void*>& b) {
                              step_of(student(), kernel)(static_cast<float*>(b[0]), static_cast<float*>(b[1]), N, N, 0.2f);
                          }});
    return checks;
});

TEST_P(NaiveStep, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    check_step(kNaiveKernel, GetParam());
}

TEST_P(TiledStep, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    check_step(kTiledKernel, GetParam());
}

// ---- StepScope ---------------------------------------------------------------------------------------

struct ScopeCase {
    int kernel;
    Grid g;
};

std::vector<ScopeCase> scope_cases() {
    std::vector<ScopeCase> cases;
    for (int kernel : {kNaiveKernel, kTiledKernel})
        for (const Grid& g : grids_of(section("scope").at("sizes"))) cases.push_back({kernel, g});
    return cases;
}

class StepScope : public testing::TestWithParam<ScopeCase> {};

TEST_P(StepScope, TouchesOnlyTheInterior) {
    GPULAB_REQUIRE_DEVICE();
    const auto [kernel, g] = GetParam();
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> in = random_field(rng, g);
    GuardedDeviceArray<float> d_in(g.cells()), d_out(g.cells());
    d_in.upload(in);
    // `out` starts as a signalling NaN with a payload no arithmetic produces, so a cell the kernel
    // wrote (even a NaN it computed) is told apart from one it never touched.
    const float untouched = sentinel();
    d_out.upload(std::vector<float>(g.cells(), untouched));
    const auto is_untouched = [&](float v) { return same_bits(v, untouched); };

    const std::string call = std::string(launcher_name(kernel)) + "(nx=" + std::to_string(g.nx) +
                             ", ny=" + std::to_string(g.ny) + ")";
    step_of(student(), kernel)(d_in.data(), d_out.data(), g.nx, g.ny, 0.2f);
    gpulab::check_student_launch(call);

    const std::vector<float> out = d_out.download();
    const std::vector<float> inner = interior_of(out, g);
    const auto unwritten = std::count_if(inner.begin(), inner.end(), is_untouched);
    std::size_t ghosts_written = 0;
    std::ostringstream first_ghosts;
    for (int j = 0; j <= g.ny + 1; ++j)
        for (int i = 0; i <= g.nx + 1; ++i) {
            if (g.interior(i, j) || is_untouched(out[g.at(i, j)])) continue;
            if (++ghosts_written <= 4)
                first_ghosts << "\n    " << (g.corner(i, j) ? "corner " : "ghost ") << cell_name(i, j) << " = "
                             << num(out[g.at(i, j)]);
        }
    GPULAB_ASSERT(unwritten == 0) << call << " left " << unwritten << " of the " << inner.size()
                                  << " interior cells unwritten"
                                  << (ghosts_written ? " and wrote " + std::to_string(ghosts_written) +
                                                           " ghost cell(s) instead: its writes land in the wrong "
                                                           "places (cell (i, j) is at j * (nx + 2) + i)"
                                                     : std::string())
                                  << ". This test checks what else the step kernel touches, so it can only pass "
                                     "once the kernel writes every interior cell.";

    std::size_t changed = 0;
    const long first = first_difference(d_in.download(), in, &changed);
    GPULAB_EXPECT(changed == 0) << call << " changed its INPUT array at " << changed << " cell(s), first at "
                                << where(g, first) << ". The step must read only `in` and write only `out`: "
                                << "updating one array in place races, because a block can read a neighbour that "
                                   "another block has already overwritten.";
    GPULAB_EXPECT(ghosts_written == 0)
        << call << " wrote " << ghosts_written << " cell(s) of the ghost ring of `out`:" << first_ghosts.str()
        << "\n  The step kernel writes only interior cells (1 <= i <= nx, 1 <= j <= ny); the ghost ring belongs "
           "to the boundary kernel. Do threads outside the interior (or halo-loading threads) store a result?";
    for (const auto* array : {&d_in, &d_out}) {
        const gpulab::GuardReport guards = array->check_guards();
        GPULAB_EXPECT(guards.intact()) << call << ": "
                                       << guards.describe(array == &d_in ? "the input array" : "the output array");
    }
    gpulab::record_figure(changed == 0 && ghosts_written == 0 ? "only the interior written" : "wrote outside the interior",
                          "nothing else written");
}

// ---- Boundary ----------------------------------------------------------------------------------------

class Boundary : public testing::TestWithParam<Grid> {};

TEST_P(Boundary, InsulatedWalls) {
    GPULAB_REQUIRE_DEVICE();
    const Grid g = GetParam();
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> before = random_field(rng, g);
    GuardedDeviceArray<float> d_f(g.cells());
    d_f.upload(before);

    const std::string call = "launch_boundary(nx=" + std::to_string(g.nx) + ", ny=" + std::to_string(g.ny) + ")";
    student().launch_boundary(d_f.data(), g.nx, g.ny);
    gpulab::check_student_launch(call);
    const std::vector<float> after = d_f.download();

    // What each cell should hold: an edge ghost its interior neighbour's value, everything else its own.
    const auto source_of = [&](int i, int j) -> std::pair<int, int> {
        if (g.corner(i, j) || g.interior(i, j)) return {i, j};
        if (i == 0) return {1, j};
        if (i == g.nx + 1) return {g.nx, j};
        if (j == 0) return {i, 1};
        return {i, g.ny};
    };
    const auto origin_of = [&](float value) -> std::string {
        if (gpulab::is_poison(value)) return " (NaN)";
        for (int j = 0; j <= g.ny + 1; ++j)
            for (int i = 0; i <= g.nx + 1; ++i)
                if (same_bits(value, before[g.at(i, j)])) return " (the value cell " + cell_name(i, j) + " had)";
        return "";
    };
    std::size_t wrong_edges = 0, wrong_corners = 0, wrong_interior = 0;
    std::ostringstream shown;
    int listed = 0;
    for (int j = 0; j <= g.ny + 1; ++j)
        for (int i = 0; i <= g.nx + 1; ++i) {
            const auto [si, sj] = source_of(i, j);
            const float want = before[g.at(si, sj)], got = after[g.at(i, j)];
            if (same_bits(want, got)) continue;
            const bool corner = g.corner(i, j), interior = g.interior(i, j);
            (corner ? wrong_corners : interior ? wrong_interior : wrong_edges)++;
            if (listed++ >= 8) continue;
            shown << "\n    " << (corner ? "corner " : interior ? "interior cell " : "ghost ") << cell_name(i, j);
            if (corner || interior)
                shown << " changed from " << num(want) << " to " << num(got) << origin_of(got);
            else
                shown << " should copy " << cell_name(si, sj) << " = " << num(want) << " but is " << num(got)
                      << (same_bits(got, before[g.at(i, j)]) ? " (unchanged: nothing wrote it)" : origin_of(got));
        }
    const std::size_t edge_ghosts = 2 * std::size_t(g.nx) + 2 * std::size_t(g.ny);
    std::ostringstream hints;
    if (wrong_edges) hints << "\n  " << wrong_edges << " of the " << edge_ghosts << " edge ghosts are wrong: (0,j) copies (1,j), "
                           << "(nx+1,j) copies (nx,j), (i,0) copies (i,1), (i,ny+1) copies (i,ny). Rows are nx+2 "
                              "floats apart.";
    if (wrong_corners) hints << "\n  " << wrong_corners << " corner(s) changed: the 5-point stencil never reads the "
                             << "corners, and the boundary kernel must leave them alone.";
    if (wrong_interior) hints << "\n  " << wrong_interior << " interior cell(s) changed: the boundary kernel may write "
                              << "only the ghost ring.";
    GPULAB_EXPECT(listed == 0) << call << ":" << shown.str() << (listed > 8 ? "\n    ..." : "") << hints.str();
    const gpulab::GuardReport guards = d_f.check_guards();
    GPULAB_EXPECT(guards.intact()) << call << ": " << guards.describe("the array");
    gpulab::record_figure(listed == 0 ? "walls mirror the interior" : std::to_string(listed) + (listed == 1 ? " cell wrong" : " cells wrong"),
                          "bitwise; corners untouched");
}

// ---- Solve -------------------------------------------------------------------------------------------

struct SolveCase {
    std::string name;
    Grid g;
    double k, h, tmax;
    std::vector<double> start;
};

// The solve cases: every object in lab.json's "solve" section, by its name ("gaussian" is the
// handout's start; the others start from random temperatures).
std::vector<std::string> solve_case_names() {
    std::vector<std::string> names;
    for (const auto& [name, spec] : section("solve").items())
        if (spec.is_object()) names.push_back(name);
    return names;
}

SolveCase solve_case(const std::string& name) {
    const Json& spec = config_at(section("solve"), name);
    SolveCase c{name, {spec.at("nx").get<int>(), spec.at("ny").get<int>()}, spec.at("k"), 0, spec.at("tmax"), {}};
    if (name == "gaussian") {
        c.h = double(spec.at("length")) / c.g.nx;
        c.start = oracle::gaussian_start(c.g, c.h);
    } else {
        c.h = spec.at("h");
        gpulab::Rng rng(gpulab::run_seed());
        c.start = oracle::widen(random_field(rng, c.g));
    }
    return c;
}

// The relative L2 error over every cell but the four corners (nothing in the lab writes them, so
// whatever integrate's buffers held there does not count).
double rel_l2_without_corners(const std::vector<float>& f, const std::vector<double>& expected, const Grid& g) {
    std::vector<float> a;
    std::vector<double> b;
    for (int j = 0; j <= g.ny + 1; ++j)
        for (int i = 0; i <= g.nx + 1; ++i)
            if (!g.corner(i, j)) {
                a.push_back(f[g.at(i, j)]);
                b.push_back(expected[g.at(i, j)]);
            }
    return gpulab::relative_l2_error(a, b);
}

// Explains a solve that went wrong: where the worst cells are.
std::string explain_solve(const std::vector<float>& f, const std::vector<double>& expected, const Grid& g, double tol) {
    gpulab::Shape shape;
    shape.nx = std::size_t(g.nx + 2);
    shape.ny = std::size_t(g.ny + 2);
    std::vector<float> a = requiet(f);  // nothing was poisoned here: every NaN was computed
    std::vector<double> b = expected;
    for (int j : {0, g.ny + 1})
        for (int i : {0, g.nx + 1}) a[g.at(i, j)] = float(b[g.at(i, j)]);  // corners are not compared
    return gpulab::compare(a, b, shape, {tol, tol}).explain("solve (cells of the whole array, ghost ring included)");
}

struct SolveParam {
    std::string start;
    int kernel;
};

class Solve : public testing::TestWithParam<SolveParam> {};

// A solve that stalled: its interior is the start's, or the start's after one step (a host loop that
// never swaps its buffers runs every step from the start). "" when it is neither.
std::string stalled_solve(const std::vector<float>& f, const SolveCase& c, double r) {
    const std::vector<float> start = oracle::narrow(c.start);
    const std::vector<float> inner = interior_of(f, c.g);
    const std::vector<float> inner_start = interior_of(start, c.g);
    if (std::equal(inner.begin(), inner.end(), inner_start.begin(), same_bits<float>))
        return "  Your result is exactly the start: nothing moved. Does integrate copy back the buffer that holds "
               "the last step?\n";
    if (gpulab::relative_l2_error(inner, interior_of(oracle::integrate(oracle::widen(start), c.g, r, 1), c.g)) < 1e-5)
        return "  Your result is the start after 1 step: every step started again from the initial field. Does "
               "your host loop swap the two buffers after each step, so that the next step reads what this one "
               "wrote?\n";
    return "";
}

TEST_P(Solve, MatchesOracle) {
    GPULAB_REQUIRE_DEVICE();
    const SolveCase c = solve_case(GetParam().start);
    const int kernel = GetParam().kernel;
    std::vector<float> f = oracle::narrow(c.start);
    const int expected_steps = oracle::steps_to(c.k, c.h, c.tmax);
    const double exact_steps = c.tmax / (0.25 * c.h * c.h / c.k);
    const std::string uneven = gpulab::uneven_step_count_hint(c.tmax, exact_steps, expected_steps, "h^2 / 4k");
    int steps = 0;
    try {
        steps = student().solve(f.data(), c.g.nx, c.g.ny, c.k, c.h, c.tmax, kernel);
    } catch (const std::exception& e) {
        FAIL() << "solve(" << c.g.nx << " x " << c.g.ny << " cells, k = " << c.k << ", h = " << c.h
               << ", tmax = " << c.tmax << ", " << kernel_name(kernel) << ") threw: " << e.what() << "." << uneven;
    }

    const double r = c.k * (c.tmax / expected_steps) / (c.h * c.h);
    const std::vector<double> expected = oracle::integrate(oracle::widen(oracle::narrow(c.start)), c.g, r, expected_steps);
    const double error = rel_l2_without_corners(f, expected, c.g);
    const double tol = section("solve").at("rel_l2_tol");
    gpulab::record_figure("rel L2 err " + sci(error), "<= " + sci(tol, 0));
    GPULAB_EXPECT(steps == expected_steps) << "solve returned " << steps << " steps; the handout's rule (the largest "
                                           << "dt with r <= 1/4 that divides tmax) gives " << expected_steps << "."
                                           << uneven;
    if (error > tol) {
        ADD_FAILURE() << "After solving to t = " << c.tmax << " with the " << kernel_name(kernel) << " kernel (" << c.g.nx
                      << " x " << c.g.ny << " cells, k = " << c.k << ", h = " << c.h << "), the relative L2 error is "
                      << sci(error) << " (allowed " << sci(tol, 0) << ").\n"
                      << explain_solve(f, expected, c.g, tol) << stalled_solve(f, c, r);
    }
}

// ---- Stability ---------------------------------------------------------------------------------------

TEST(Stability, ChosenDtIsStable) {
    const double min_r = section("stability").at("min_r");
    const gpulab::ChosenDtCheck check = gpulab::check_chosen_dt(
        section("stability").at("choose_dt_cases"), "h", 0.25, "1/4 (the 2D bound)", min_r,
        [](double k, double h, double tmax) { return student().choose_dt(k, h, tmax); }, [](double r) {
            return r <= 0.5 + 1e-12 ? std::string(" (1/2 is the rod's bound; a square has two directions to lose heat in.)")
                                    : std::string();
        });
    gpulab::record_figure("largest r " + fixed(check.largest_r, 6), fixed(min_r, 2) + " <= r <= 0.25, whole steps");
    GPULAB_EXPECT(check.problems.empty()) << check.problems;
}

TEST(Stability, RefusesUnstableDt) {
    const Grid g{16, 12};
    const double k = 1.0, h = 0.1;
    std::vector<float> f(g.cells(), 1.0f);
    f[g.at(8, 6)] = 2.0f;
    for (int kernel : {kNaiveKernel, kTiledKernel})
        gpulab::expect_refuses_unstable_dt(
            f, section("stability").at("refused_ratios"), h * h / k,
            std::string("integrate(..., ") + kernel_name(kernel) + ")", "1/4",
            [&](double dt) { student().integrate(f.data(), g.nx, g.ny, k, h, dt, 10, kernel); },
            [](double r) { return r <= 0.5 ? std::string(" (Checking against the rod's 1/2? In 2D the bound is 1/4.)") : ""; });
}

class Stability : public testing::TestWithParam<int> {};

// A random start that already satisfies the insulated walls, run with the student's integrate.
struct LongRun {
    Grid g;
    int kernel = kNaiveKernel, steps = 0;
    double r = 0;
    std::vector<float> start, end;
};

LongRun long_run(int kernel) {
    const Json& spec = section("stability").at("long_run");
    const Grid g{spec.at("nx").get<int>(), spec.at("ny").get<int>()};
    const int steps = spec.at("steps");
    const double r = spec.at("r"), h = 1.0, k = 1.0;
    auto rng = gpulab::Rng::for_current_test();
    LongRun run{g, kernel, steps, r, random_insulated_field(rng, g), {}};
    run.end = run.start;
    student().integrate(run.end.data(), g.nx, g.ny, k, h, r * h * h / k, steps, kernel);
    return run;
}

// The variance of the interior cells about their mean: how uneven the temperatures are.
double interior_spread(const std::vector<double>& f, const Grid& g) {
    const std::vector<double> inner = interior_of(f, g);
    const double mean = std::accumulate(inner.begin(), inner.end(), 0.0) / double(inner.size());
    double sum = 0;
    for (double v : inner) sum += (v - mean) * (v - mean);
    return sum / double(inner.size());
}

// A run that froze keeps its range and its heat, so the maximum principle and the conservation of heat
// alone pass it. So the long run must also have evolved as the oracle's run of the same start did: heat
// evens out, and the spread of the temperatures (their variance) shrinks by the oracle's factor.
// Returns "" when it did, else what went wrong, as precisely as the result allows.
std::string evolution_problem(const LongRun& run, double* shrink, double* expected_shrink) {
    const Grid& g = run.g;
    const std::vector<double> start = oracle::widen(run.start);
    const double spread0 = interior_spread(start, g);
    *expected_shrink = interior_spread(oracle::integrate(start, g, run.r, run.steps), g) / spread0;
    *shrink = interior_spread(oracle::widen(run.end), g) / spread0;
    const double tol = section("stability").at("evolution_rel_tol");
    if (!std::isfinite(*shrink) || std::fabs(*shrink / *expected_shrink - 1.0) <= tol) return "";  // NaN: said elsewhere
    const std::string steps = std::to_string(run.steps);
    std::ostringstream out;
    out << "With the " << kernel_name(run.kernel) << " kernel the temperatures did not even out as they should: after "
        << steps << " steps at r = " << fixed(run.r, 2) << " the spread of the interior (its variance) should have "
        << "shrunk to " << sci(*expected_shrink) << " of its start, as in the oracle's run of the same start, but "
        << "yours is " << sci(*shrink) << " of it (allowed: within " << fixed(100 * tol, 0) << "%). ";
    const std::size_t cells = std::size_t(g.nx) * std::size_t(g.ny);
    std::size_t frozen = 0;
    std::string first_frozen;
    for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i)
            if (same_bits(run.end[g.at(i, j)], run.start[g.at(i, j)]) && frozen++ == 0) first_frozen = cell_name(i, j);
    const std::vector<double> one_step = interior_of(oracle::integrate(start, g, run.r, 1), g);
    if (frozen == cells)
        out << "In fact the interior is exactly the start: nothing moved. Does integrate run its " << steps
            << " steps, swap the two buffers after each, and copy back the buffer that holds the last step (after "
               "the swap, the one the next step would read)?";
    else if (gpulab::relative_l2_error(interior_of(run.end, g), one_step) < 1e-5)
        out << "In fact the field after " << steps << " steps looks like the field after 1 step: every step "
            << "started again from the initial field. Does your host loop swap the two buffers after each step "
               "(std::swap(d_a, d_b)), so that the next step reads what this one wrote?";
    else if (frozen * 100 >= cells)
        out << frozen << " of the " << cells << " interior cells (the first: cell " << first_frozen
            << ") still hold their start value bit for bit, so the step never updated them. Does every thread "
               "compute its own cell from blockIdx, blockDim and threadIdx, and does the grid cover the whole "
               "interior in both directions?";
    else
        out << "Check the number of steps integrate runs, the r it passes to the kernel, that each step reads "
               "the previous step's result, and that the boundary kernel runs on the buffer the step just wrote.";
    return out.str();
}

TEST_P(Stability, MaximumPrinciple) {
    GPULAB_REQUIRE_DEVICE();
    const LongRun run = long_run(GetParam());
    const std::vector<float> start = interior_of(run.start, run.g), end = interior_of(run.end, run.g);
    const auto [lo0, hi0] = std::minmax_element(start.begin(), start.end());
    const auto [lo, hi] = std::minmax_element(end.begin(), end.end(),
                                              [](float a, float b) { return a < b || std::isnan(b); });
    const double slack = section("stability").at("max_principle_slack");
    double shrink = 0, expected_shrink = 0;
    const std::string frozen = evolution_problem(run, &shrink, &expected_shrink);
    gpulab::record_figure("range [" + fixed(*lo, 4) + ", " + fixed(*hi, 4) + "], spread x" + sci(shrink),
                          "within [" + fixed(*lo0, 4) + ", " + fixed(*hi0, 4) + "], spread x" + sci(expected_shrink));
    GPULAB_EXPECT(frozen.empty()) << frozen << " (A field that does not change never leaves its range either, so "
                                     "this test also checks that it changed as it should.)";
    const bool bounded = std::all_of(end.begin(), end.end(), [&](float v) {
        return std::isfinite(v) && v >= *lo0 - slack && v <= *hi0 + slack;
    });
    GPULAB_EXPECT(bounded) << "After a long run at r = 1/4 with the " << kernel_name(GetParam())
                           << " kernel the interior temperatures span [" << num(*lo) << ", " << num(*hi)
                           << "], outside the starting range [" << num(*lo0) << ", " << num(*hi0)
                           << "]. With r <= 1/4 every new value is a weighted average of old ones (weights 1 - 4r, "
                              "r, r, r, r), so it can never leave that range: check the formula, the neighbours "
                              "you read, and the boundary kernel.";
}

TEST_P(Stability, ConservesHeat) {
    GPULAB_REQUIRE_DEVICE();
    const LongRun run = long_run(GetParam());
    const double before = oracle::interior_sum(oracle::widen(run.start), run.g);
    const double after = oracle::interior_sum(oracle::widen(run.end), run.g);
    const double drift = std::fabs(after - before) / before;
    const double tol = section("stability").at("heat_rel_drift");
    double shrink = 0, expected_shrink = 0;
    const std::string frozen = evolution_problem(run, &shrink, &expected_shrink);
    gpulab::record_figure("heat drift " + sci(drift) + ", spread x" + sci(shrink),
                          "<= " + sci(tol, 0) + ", spread x" + sci(expected_shrink));
    GPULAB_EXPECT(frozen.empty()) << frozen << " (A field that does not change keeps its heat too, so this test "
                                     "also checks that it changed as it should.)";
    GPULAB_EXPECT(drift <= tol) << "With the " << kernel_name(GetParam()) << " kernel, the total heat of the interior "
                                << "changed from " << num(before) << " to " << num(after) << " (relative " << sci(drift)
                                << "). An insulated square keeps its heat: the flux through each wall is zero when "
                                   "every edge ghost equals its interior neighbour. Check the boundary kernel (all "
                                   "four walls) and that it runs after every step, on the buffer the step just wrote.";
}

TEST_P(Stability, CosineDecayRate) {
    GPULAB_REQUIRE_DEVICE();
    const Json& spec = section("stability").at("cosine");
    const Grid g{spec.at("nx").get<int>(), spec.at("ny").get<int>()};
    const int m = spec.at("m"), n = spec.at("n"), steps = spec.at("steps");
    const double r = spec.at("r"), k = spec.at("k"), h = spec.at("h"), dt = r * h * h / k;
    const double lx = g.nx * h, ly = g.ny * h;
    std::vector<double> start = oracle::cosine_mode(g, m, n);
    for (double& v : start) v += 1.0;  // keep every value away from 0
    std::vector<float> f = oracle::narrow(start);
    student().integrate(f.data(), g.nx, g.ny, k, h, dt, steps, GetParam());

    const double measured = oracle::mode_amplitude(oracle::widen(f), g, m, n);
    const double lambda = (M_PI * m / lx) * (M_PI * m / lx) + (M_PI * n / ly) * (M_PI * n / ly);
    const double analytic = std::exp(-k * lambda * dt * steps);
    const double rel = std::fabs(measured - analytic) / analytic;
    const double tol = spec.at("rel_tol");
    gpulab::record_figure("amplitude " + fixed(measured, 5) + " vs " + fixed(analytic, 5), "rel err <= " + sci(tol, 0));
    GPULAB_EXPECT(rel <= tol) << "The mode cos(pi m (i-1/2)/nx) cos(pi n (j-1/2)/ny) with m = " << m << ", n = " << n
                              << " on " << g.nx << " x " << g.ny << " cells should decay to exp(-k ((pi m/Lx)^2 + "
                              << "(pi n/Ly)^2) t) = " << num(analytic) << " of its start after t = " << num(dt * steps)
                              << ", but with the " << kernel_name(GetParam()) << " kernel its amplitude is "
                              << num(measured) << " (relative error " << sci(rel) << ", allowed " << sci(tol, 0)
                              << "). Too slow a decay: a direction is missing or r is applied wrongly; too fast: "
                              << "a neighbour is counted twice.";
}

TEST_P(Stability, BlowsUpAboveBound) {
    GPULAB_REQUIRE_DEVICE();
    const int kernel = GetParam();
    const Json& spec = section("stability").at("blow_up");
    const Grid g{spec.at("nx").get<int>(), spec.at("ny").get<int>()};
    const int steps = spec.at("steps");
    const int m = g.nx - 1, n = g.ny - 1;  // the highest mode the insulated square has
    const double r = spec.at("r"), epsilon = 1e-3;
    std::vector<double> start = oracle::cosine_mode(g, m, n);
    for (double& v : start) v = 1.0 + epsilon * v;
    // integrate refuses r > 1/4, so the grader drives the student's kernels itself.
    GuardedDeviceArray<float> a(g.cells()), b(g.cells());
    a.upload(oracle::narrow(start));
    b.upload(oracle::narrow(start));  // corners: never written, never read
    const StepFn step = step_of(student(), kernel);
    for (int s = 0; s < steps; ++s) {
        step(a.data(), b.data(), g.nx, g.ny, float(r));
        student().launch_boundary(b.data(), g.nx, g.ny);
        std::swap(a, b);
    }
    gpulab::check_student_launch(std::string(launcher_name(kernel)) + " / launch_boundary");
    const std::vector<float> end = a.download(), begin = oracle::narrow(start);
    GPULAB_ASSERT(!std::equal(end.begin(), end.end(), begin.begin(), same_bits<float>))
        << "After " << steps << " steps of " << launcher_name(kernel) << " and launch_boundary the field has not "
        << "changed at all: the kernels wrote nothing. Are they still TODOs?";
    const double grown = oracle::mode_amplitude(oracle::widen(end), g, m, n) / epsilon;
    const double sx = std::sin(M_PI * m / (2.0 * g.nx)), sy = std::sin(M_PI * n / (2.0 * g.ny));
    const double factor = std::fabs(1.0 - 4.0 * r * (sx * sx + sy * sy));
    const double predicted = std::pow(factor, steps);
    const double log_error = std::fabs(std::log(std::fabs(grown)) - std::log(predicted)) / std::log(predicted);
    const double tol = spec.at("log_growth_rel_tol");
    gpulab::record_figure("grew x" + sci(std::fabs(grown)) + ", FTCS predicts x" + sci(predicted),
                          "log within " + fixed(100 * tol, 0) + "%");
    GPULAB_EXPECT(std::isfinite(grown) && log_error <= tol)
        << "At r = " << fixed(r, 2) << " (just above 1/4) FTCS amplifies the highest mode of the " << g.nx << " x "
        << g.ny << " square by |1 - 4 r (sin^2(theta_x/2) + sin^2(theta_y/2))| = " << num(factor) << " per step, so after "
        << steps << " steps it should have grown " << sci(predicted) << " times; with your " << kernel_name(kernel)
        << " kernel it grew " << sci(std::fabs(grown))
        << " times. A kernel that stays bounded here is not computing the FTCS step.";
}

// ---- Technique (GPU only) ------------------------------------------------------------------------------

class Technique : public testing::TestWithParam<int> {};

TEST_P(Technique, SharedMemoryTile) {
    GPULAB_REQUIRE_GPU();
    const int kernel = GetParam();
    const Json& spec = section("technique");
    const Grid g{spec.at("nx").get<int>(), spec.at("ny").get<int>()};
    auto rng = gpulab::Rng::for_current_test();
    GuardedDeviceArray<float> d_in(g.cells()), d_out(g.cells());
    d_in.upload(random_field(rng, g));
    std::vector<gpulab::RecordedLaunch> launches;
    {
        gpulab::LaunchRecorder recorder;
        step_of(student(), kernel)(d_in.data(), d_out.data(), g.nx, g.ny, 0.2f);
        gpulab::check_student_launch(launcher_name(kernel));
        launches = recorder.launches();
    }
    std::string described;
    for (const auto& launch : launches) described += (described.empty() ? "" : "; ") + launch.describe();
    testing::Test::RecordProperty("student_launch", described.empty() ? "no launch" : described);
    GPULAB_ASSERT(gpulab::launch_recording_supported()) << "grader error: launches cannot be recorded here";
    GPULAB_ASSERT(!launches.empty()) << launcher_name(kernel) << " launched no kernel (nothing was recorded).";

    const double per_thread = spec.at("min_shared_floats_per_thread");
    if (kernel == kTiledKernel) {
        gpulab::record_figure(described, ">= " + fixed(per_thread, 0) + " float of shared memory per thread");
        for (const auto& launch : launches) {
            const double threads = double(launch.block.x) * launch.block.y * launch.block.z;
            GPULAB_EXPECT(double(launch.shared_bytes()) >= per_thread * sizeof(float) * threads)
                << "launch_step_tiled launched " << launch.describe() << ": "
                << (launch.shared_bytes() == 0
                        ? "its kernel uses no shared memory at all. "
                        : "that is less shared memory than one float per thread of the block. ")
                << "The tiled kernel must copy its tile (the block's cells plus a one-cell halo) into a __shared__ "
                   "array, so it needs at least one float of shared memory per thread. (Speed cannot show this: on "
                   "recent GPUs the caches make the naive kernel at least as fast.)";
        }
    } else {
        gpulab::record_figure(described, "0 B shared");
        for (const auto& launch : launches)
            GPULAB_EXPECT(launch.shared_bytes() == 0)
                << "launch_step_naive launched " << launch.describe()
                << ": the naive kernel should read its neighbours straight from global memory, with no shared "
                   "memory. It is the baseline the tiled kernel is compared with.";
    }
}

// ---- Technique (CPU execution mode): does the tiled kernel compute from its tile? --------------------------

// What a kernel launched with `launches` (the one with the most blocks) would read per interior cell of g if
// each block loaded its own cells and the one-cell halo around them once, the halo's corners left out: the
// interior shared among the blocks along each axis, each block adding two halo cells per row and per column.
// Advice for a kernel between the bar and the naive stencil: are its tiles too small, or does it read some
// values from global memory?
std::string tiling_advice(const std::vector<gpulab::RecordedLaunch>& launches, const Grid& g, double bound) {
    dim3 grid(0, 0, 0);
    for (const auto& l : launches)
        if (1ull * l.grid.x * l.grid.y > 1ull * grid.x * grid.y) grid = l.grid;
    const double bx = std::min<double>(grid.x, g.nx), by = std::min<double>(grid.y, g.ny);
    const double ideal = 1 + 2 * bx / g.nx + 2 * by / g.ny;
    std::ostringstream out;
    out << "Your launch at " << size_name(g) << " has " << grid.x << " x " << grid.y << " blocks; if each block "
        << "loaded its own cells and the one-cell halo around them once, that would be " << fixed(ideal, 2)
        << " reads per cell";
    if (ideal > bound)
        out << ", over the bar already: give each block more cells, at least 2 rows and 8 columns (32 x 8 tiles "
               "read about 1.3 times per cell).";
    else
        out << ". Yours reads more: some neighbours still come from global memory instead of the tile, or cells "
               "are loaded more than once.";
    return out.str();
}

// Counts, exactly, how often launch_step_tiled's kernels read `in` per interior cell (CPU execution mode;
// gpulab-grade runs this test there on a GPU machine too). A kernel that computes from its tile reads each
// cell once plus its share of the halo (1.31 times with 32 x 8 blocks); the naive stencil reads 5. Shared
// memory in the launch (Technique.SharedMemoryTile) only shows that a tile exists, not that it is used.
// (A plain TEST: its suite is "Technique", the parameterized one above is "Kernels/Technique".)
TEST(Technique, ComputesFromSharedTile) {
    GPULAB_REQUIRE_DEVICE();
    GPULAB_REQUIRE_READ_COUNTER();
    const Json& spec = config_at(section("technique"), "reads");
    const double bound = spec.at("max_reads_per_cell");
    const gpulab::Tolerance tol{section("step").at("rel_tol"), section("step").at("abs_tol")};
    const float r = 0.2f;
    double worst = -1;
    std::string worst_call, figure, advice;
    std::vector<Grid> grids = grids_of(spec.at("sizes"));
    const std::vector<int> drawn = gpulab::random_size_for_run(spec.at("random"));  // and one nobody can predict
    grids.push_back({drawn[0], drawn[1]});
    for (const Grid& g : grids) {
        auto rng = gpulab::Rng::for_current_test();
        const std::vector<float> in = random_field(rng, g);
        GuardedDeviceArray<float> d_in(g.cells()), d_out(g.cells());
        d_in.upload(in);
        const std::string call = "launch_step_tiled(nx=" + std::to_string(g.nx) + ", ny=" + std::to_string(g.ny) + ")";
        gpulab::LaunchRecorder recorder;  // CPU execution mode: the launch's grid, for the advice
        const gpulab::ReadCount count = gpulab::count_device_reads(d_in.data(), g.cells() * sizeof(float), [&] {
            student().launch_step_tiled(d_in.data(), d_out.data(), g.nx, g.ny, r);
            gpulab::check_student_launch(call);
        });
        GPULAB_ASSERT(count.available) << "grader error: could not count the reads of " << call << ": " << count.why;
        const gpulab::Comparison result =
            gpulab::compare(interior_of(d_out.download(), g), expected_interior(in, g, r), interior_shape(g), tol);
        if (!result.ok())
            GTEST_SKIP() << call << " does not compute the step right at this size yet (TiledStep.MatchesOracle says "
                         << "where); how it reads its input is judged once it does.";
        GPULAB_ASSERT(count.host_bytes_read == 0)
            << call << " copied " << count.host_bytes_read << " bytes out of `in` with cudaMemcpy while it ran. The "
            << "tiled step reads `in` in its kernel, into a shared-memory tile, and computes from the tile.";
        const double per_cell = double(count.reads) / (double(g.nx) * g.ny);
        testing::Test::RecordProperty("reads_per_cell_" + size_name(g), fixed(per_cell, 2));
        if (per_cell > worst) {
            worst = per_cell, worst_call = call;
            advice = tiling_advice(recorder.launches(), g, bound);
        }
        figure += (figure.empty() ? "" : ", ") + fixed(per_cell, 2) + " reads/cell at " + size_name(g);
    }
    gpulab::record_figure(figure + " (naive: 5)", "<= " + fixed(bound, 1) + " global reads of in per cell");
    std::ostringstream why;
    const gpulab::TileUse use = gpulab::classify_tile_use(worst, 5);
    if (use == gpulab::TileUse::like_naive)
        why << "That is as often as the naive stencil, which reads the cell and its four neighbours from global "
               "memory: does launch_step_tiled launch ftcs_tiled, and does ftcs_tiled compute from its tile?";
    else if (use == gpulab::TileUse::beyond_naive)
        why << "That is more than the naive stencil's 5: your kernel copies a tile into shared memory but still reads "
               "its neighbours from global memory. Compute from the tile: after __syncthreads() every value the "
               "stencil needs (the cell and its four neighbours) comes from the __shared__ array.";
    else
        why << advice;
    GPULAB_EXPECT(worst <= bound) << worst_call << " reads its input `in` " << fixed(worst, 2)
                                  << " times per interior cell (counted exactly in CPU execution mode; a tiled kernel "
                                     "reads each cell once into its tile, plus its share of the halo; the naive "
                                     "stencil 5 times; allowed: at most "
                                  << fixed(bound, 1) << "). " << why.str();
}

// ---- Speed (GPU only) ------------------------------------------------------------------------------------

// The rules every timed step is held to (gpulab/timed_work.h): a fresh field before every sample, a sample
// of interior cells recomputed in double after it, the compulsory traffic at the device copy's bandwidth as
// the floor, and the kernels the launch ran at the technique size as the only ones allowed.
// `step` is the launch function timed (the student's kernel of that technique, or the expert's on the
// roofline) and `name` names it in messages.
gpulab::TimedWork timed_step(StepFn step, const std::string& name, const Grid& g, float r, float* d_in,
                             const float* d_out, double copy_gbs) {
    const Json& spec = section("speed");
    gpulab::TimedWork work;
    work.call = name + " at " + size_name(g);
    work.seed = gpulab::Rng::for_current_test().seed();
    gpulab::FieldOracle oracle;
    oracle.cells = g.cells();
    const std::size_t pitch = std::size_t(g.pitch());
    oracle.checked = [g, pitch](std::size_t c) {
        const std::size_t i = c % pitch, j = c / pitch;
        return i >= 1 && i <= std::size_t(g.nx) && j >= 1 && j <= std::size_t(g.ny);
    };
    const double rel = section("step").at("rel_tol"), abs = section("step").at("abs_tol");
    oracle.expected = [r, rel, abs, pitch](std::size_t c, const gpulab::FreshDraw& d) {
        const double centre = d.at(c);
        const double f = centre + double(r) * (d.at(c - 1) + d.at(c + 1) + d.at(c - pitch) + d.at(c + pitch) - 4.0 * centre);
        return gpulab::CellExpectation{f, abs + rel * std::fabs(f)};
    };
    oracle.name = [pitch](std::size_t c) { return "cell " + cell_name(int(c % pitch), int(c / pitch)); };
    oracle.always = {g.at(1, 1), g.at(g.nx, 1), g.at(1, g.ny), g.at(g.nx, g.ny)};
    // Temperatures 0.5 ... 2.5, ghost ring included, exact in float (fresh_inputs.h).
    gpulab::use_fresh_field(work, d_in, g.cells(), gpulab::FreshDraw{0, 0.5f, 1.0f / (1 << 19)}, d_out,
                            spec.at("fresh_checks"), oracle);
    gpulab::set_memory_floor(work, 8.0 * double(g.nx) * double(g.ny), copy_gbs, spec.at("floor_margin"));
    const Grid probe{section("technique").at("nx").get<int>(), section("technique").at("ny").get<int>()};
    GuardedDeviceArray<float> p_in(probe.cells()), p_out(probe.cells());
    gpulab::fill_fresh(p_in.data(), probe.cells(), gpulab::FreshDraw{1, 0.5f, 1.0f / (1 << 19)});
    work.approved = gpulab::probe_launches([&] { step(p_in.data(), p_out.data(), probe.nx, probe.ny, r); });
    gpulab::check_student_launch(name + " at " + size_name(probe));
    work.approved_at = size_name(probe);
    return work;
}

// One speed test: checks the kernel's output at this size, then times it against the reference's
// kernel of the same technique, interleaved, and reports ms, GB/s and % of a copy.
void speed_test(int kernel) {
    GPULAB_REQUIRE_GPU();
    const Json& spec = section("speed");
    const int N = spec.at("N");
    const Grid g{N, N};
    const float r = 0.2f;
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> in = random_field(rng, g);
    GuardedDeviceArray<float> d_in(g.cells()), d_student(g.cells()), d_reference(g.cells());
    d_in.upload(in);
    const StepFn mine = step_of(student(), kernel), theirs = step_of(reference(), kernel);
    const std::string call = std::string(launcher_name(kernel)) + " at " + size_name(g);

    gpulab::TimingOptions options;
    options.warmup = spec.at("warmup");
    options.samples = spec.at("samples");
    const double copy_gbs = gpulab::copy_bandwidth_gbs(g.cells() * sizeof(float), options);
    gpulab::TimedWork work = timed_step(mine, launcher_name(kernel), g, r, d_in.data(), d_student.data(), copy_gbs);

    // Speed counts only for a correct kernel, so check this size first (under the deadline).
    {
        gpulab::LaunchRecorder recorder;
        gpulab::first_launch_under_deadline(work, [&] { mine(d_in.data(), d_student.data(), N, N, r); },
                                            [&] { theirs(d_in.data(), d_reference.data(), N, N, r); });
        gpulab::check_student_launch(call);
        for (const auto& launch : recorder.launches()) testing::Test::RecordProperty("student_launch", launch.describe());
    }
    {
        const auto result = gpulab::compare(interior_of(d_student.download(), g), expected_interior(in, g, r),
                                            interior_shape(g),
                                            {section("step").at("rel_tol"), section("step").at("abs_tol")});
        GPULAB_ASSERT(result.ok()) << result.explain(call);
    }

    const double threshold = spec.at("min_fraction_of_reference");
    const gpulab::SpeedVerdict verdict = gpulab::judge_speed(
        [&] { mine(d_in.data(), d_student.data(), N, N, r); },
        [&] { theirs(d_in.data(), d_reference.data(), N, N, r); }, threshold, spec.at("max_remeasures"), options,
        {d_student.data(), g.cells() * sizeof(float)}, {d_reference.data(), g.cells() * sizeof(float)}, &work);
    const double bytes = 8.0 * double(N) * double(N);  // one read and one write per interior cell, at least
    const gpulab::Throughput throughput =
        gpulab::record_speed(verdict, bytes, copy_gbs, std::string("ref ") + kernel_name(kernel));
    GPULAB_ASSERT(verdict.honest()) << gpulab::dishonest_speed(call, verdict);
    std::string figure = throughput.figure;

    // The tiled/naive ratio, the student's and the reference's, timed together in this run; left out where
    // the student's naive launch is too slow to time (a host computation would hold this test for minutes).
    const bool naive_timeable = kernel == kTiledKernel &&
        gpulab::time_reference_once([&] { student().launch_step_naive(d_in.data(), d_student.data(), N, N, r); }) <
            gpulab::kDeadlineMultiple *
                gpulab::time_reference_once([&] { reference().launch_step_naive(d_in.data(), d_reference.data(), N, N, r); });
    if (kernel == kTiledKernel && !naive_timeable) figure += "; tiled/naive n/a (your naive kernel is too slow to time)";
    if (naive_timeable) {
        try {
            const auto samples = gpulab::time_interleaved(
                {[&] { student().launch_step_naive(d_in.data(), d_student.data(), N, N, r); },
                 [&] { mine(d_in.data(), d_student.data(), N, N, r); },
                 [&] { reference().launch_step_naive(d_in.data(), d_reference.data(), N, N, r); },
                 [&] { theirs(d_in.data(), d_reference.data(), N, N, r); }},
                options);
            const double yours = samples[1].median() / samples[0].median();
            const double refs = samples[3].median() / samples[2].median();
            testing::Test::RecordProperty("student_tiled_over_naive", fixed(yours, 2));
            testing::Test::RecordProperty("reference_tiled_over_naive", fixed(refs, 2));
            figure += "; tiled/naive time " + fixed(yours, 2) + " (ref " + fixed(refs, 2) + ")";
            std::cout << "[lab 02] tiled/naive time: yours " << fixed(yours, 2) << " (naive "
                      << fixed(samples[0].median(), 3) << " ms, tiled " << fixed(samples[1].median(), 3)
                      << " ms); reference " << fixed(refs, 2) << "\n";
        } catch (const std::exception& e) {
            figure += "; tiled/naive n/a";
            std::cout << "[lab 02] could not time your naive kernel for the tiled/naive ratio: " << e.what() << "\n";
        }
    }
    gpulab::record_figure(figure, throughput.threshold);
    GPULAB_EXPECT(verdict.passed()) << "Your " << kernel_name(kernel) << " step kernel runs at "
                                    << fixed(verdict.fraction, 2) << "x the reference's " << kernel_name(kernel)
                                    << " kernel (" << gpulab::speed_comparison(verdict, throughput)
                                    << "). The bar is " << fixed(threshold, 2)
                                    << "x. Measured " << verdict.rounds << " time(s). "
                                    << (kernel == kTiledKernel
                                            ? "Is threadIdx.x along the row (coalesced loads), is the tile at least "
                                              "32 cells wide, and does each block load its halo with few extra "
                                              "instructions?"
                                            : "Is threadIdx.x along the row (neighbouring threads on neighbouring "
                                              "cells: coalesced), and is each block 128 to 512 threads?");
}

TEST(Speed, NaiveThroughput) { speed_test(kNaiveKernel); }
TEST(Speed, TiledThroughput) { speed_test(kTiledKernel); }

// ---- Report: the roofline ------------------------------------------------------------------------------

// Both kernels at the speed size on the roofline of this GPU (gpulab/roofline.h), beside the reference's and
// the expert's. lab.json "roofline" states a cell's cost: 7 flops (four adds, the centre's multiply by 4 and a subtraction folded into one
// of them, the multiply by r and the final add: in + r*(n + s + e + w - 4c)) and 8 compulsory bytes (one float
// read, one written; the ghost ring's reads are left out).
TEST(Report, Roofline) {
    GPULAB_REQUIRE_GPU();
    const int N = section("speed").at("N");
    const Grid g{N, N};
    const float r = 0.2f;
    GuardedDeviceArray<float> d_in(g.cells()), d_out(g.cells()), d_reference(g.cells());
    gpulab::fill_fresh(d_in.data(), g.cells(), gpulab::FreshDraw{2, 0.5f, 1.0f / (1 << 19)});
    gpulab::TimingOptions options;
    options.warmup = section("roofline").at("warmup");
    options.samples = section("roofline").at("samples");
    const gpulab::Roofs roofs = gpulab::measure_roofs(g.cells() * sizeof(float), options);
    const Json& roof = section("roofline");
    const double flops = roof.at("operations_per_cell").get<double>() * double(N) * N,
                 bytes = roof.at("bytes_per_cell").get<double>() * double(N) * N;
    std::vector<gpulab::RooflineKernel> kernels;
    for (int kernel : {kNaiveKernel, kTiledKernel}) {
        const StepFn mine = step_of(student(), kernel), theirs = step_of(reference(), kernel);
        auto work = std::make_shared<gpulab::TimedWork>(
            timed_step(mine, launcher_name(kernel), g, r, d_in.data(), d_out.data(), roofs.copy_gbs));
        gpulab::add_student_and_reference(kernels, kernel_name(kernel), "fp32", flops, bytes,
                                          [&, mine] { mine(d_in.data(), d_out.data(), N, N, r); },
                                          [&, theirs] { theirs(d_in.data(), d_reference.data(), N, N, r); }, work);
    }
    std::string why;
    if (const auto* expert = gpulab::expert_api<Heat2dExpertApi>(kLab, &why))
        kernels.push_back({"expert", "expert", "fp32", flops, bytes,
                           [&, expert] { expert->launch_step(d_in.data(), d_out.data(), N, N, r); },
                           std::make_shared<gpulab::TimedWork>(timed_step(expert->launch_step, "expert::launch_step", g, r,
                                                                          d_in.data(), d_out.data(), roofs.copy_gbs))});
    else
        kernels.push_back({"expert", "expert", "fp32", flops, bytes, {}, nullptr, why});
    gpulab::publish_roofline(gpulab::measure_roofline(roofs, size_name(g) + " floats", kernels, options), "[lab 02]");
}

// ---- Reports -------------------------------------------------------------------------------------------

// A field's interior as rows for the heat-maps plot (gpulab_plot.py): the bottom row (j = 1) first,
// 7 significant digits (plenty for a picture), NaN and infinities as null. Ordered JSON, so that a person
// who opens the file reads its fields in the order they were written.
using PlotJson = nlohmann::ordered_json;
PlotJson picture_rows(const std::vector<float>& f, const Grid& g) {
    PlotJson rows = PlotJson::array();
    for (int j = 1; j <= g.ny; ++j) {
        PlotJson row = PlotJson::array();
        for (int i = 1; i <= g.nx; ++i) {
            const float value = f[g.at(i, j)];
            if (!std::isfinite(value)) {
                row.push_back(nullptr);
                continue;
            }
            char digits[32];
            std::snprintf(digits, sizeof digits, "%.7g", double(value));
            row.push_back(std::strtod(digits, nullptr));
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

// What a report says when its picture was not drawn: why, and where its numbers are all the same.
std::string not_drawn(const gpulab::PlotOutcome& plot, const std::string& data_path) {
    return "not drawn: " + plot.skipped_because + " (the numbers are in " + data_path + ")";
}

// The handout's solve, in stretches of `every` time units, each frame drawn as a heat map.
TEST(Report, Snapshots) {
    GPULAB_REQUIRE_DEVICE();
    const Json& spec = section("snapshots");
    const SolveCase c = solve_case("gaussian");
    const double every = spec.at("every");
    const int kernel = spec.at("kernel") == "naive" ? kNaiveKernel : kTiledKernel;
    const int frames = int(std::lround(c.tmax / every));
    const double tol = section("solve").at("rel_l2_tol");

    // One colour scale for every frame, the start's range, so the pictures show the heat evening out.
    const std::vector<double> inner0 = interior_of(c.start, c.g);
    const auto [lo, hi] = std::minmax_element(inner0.begin(), inner0.end());
    const std::string dir = gpulab::artifact_dir(), data_path = dir + "/heat2d_snapshots.json";
    const auto frame_path = [&](double t, const char* suffix) { return dir + "/heat2d_t" + fixed(t, 2) + suffix + ".png"; };
    PlotJson pictures = PlotJson::array();
    std::ostringstream written, problems;
    const auto add_picture = [&](const std::vector<float>& field, double t, bool expected) {
        const std::string png = frame_path(t, expected ? "_expected" : "");
        pictures.push_back({{"t", t}, {"png", png}, {"expected", expected}, {"values", picture_rows(field, c.g)}});
        return png;
    };

    std::vector<float> f = oracle::narrow(c.start);
    std::vector<double> expected = oracle::widen(f);
    written << add_picture(f, 0, false);
    double worst = 0;
    for (int frame = 1; frame <= frames; ++frame) {
        const double t = frame * every;
        const int steps = student().solve(f.data(), c.g.nx, c.g.ny, c.k, c.h, every, kernel);
        const int want_steps = oracle::steps_to(c.k, c.h, every);
        expected = oracle::integrate(expected, c.g, c.k * (every / want_steps) / (c.h * c.h), want_steps);
        const double error = rel_l2_without_corners(f, expected, c.g);
        worst = std::max(worst, std::isfinite(error) ? error : INFINITY);
        written << "\n    " << add_picture(f, t, false);
        if (steps != want_steps || !(error <= tol)) {
            problems << "\n  t = " << fixed(t, 2) << ": " << steps << " steps (expected " << want_steps
                     << "), relative L2 error " << sci(error) << " (allowed " << sci(tol, 0) << "); what it should look like: "
                     << add_picture(oracle::narrow(expected), t, true);
        }
        // Carry on from the right answer, so each frame shows that stretch's own error.
        f = oracle::narrow(expected);
    }
    const std::string title = "Heat on an insulated square (" + std::string(kernel_name(kernel)) + " kernel, " +
                              std::to_string(c.g.nx) + " \u00d7 " + std::to_string(c.g.ny) + " cells)";
    std::ofstream(data_path) << PlotJson{{"nx", c.g.nx}, {"ny", c.g.ny}, {"range", {*lo, *hi}}, {"title", title},
                                     {"x_label", "x (cell index i)"}, {"y_label", "y (cell index j)"},
                                     {"value_label", "temperature"}, {"frames", pictures}}
                                       .dump();
    const gpulab::PlotOutcome plot = gpulab::draw_plot("heat-maps", data_path);
    if (plot.drawn_or_queued()) {
        std::cout << "[lab 02] heat maps of the handout's solve (" << kernel_name(kernel) << " kernel, " << c.g.nx
                  << " x " << c.g.ny << " cells; one colour scale for every frame, " << fixed(*lo, 3) << " to "
                  << fixed(*hi, 3) << "; magenta = NaN or infinite):\n    " << written.str() << "\n";
        testing::Test::RecordProperty("pictures", written.str());
    } else {
        std::cout << "[lab 02] heat maps " << not_drawn(plot, data_path) << "\n" << plot.output;
        testing::Test::RecordProperty("pictures", not_drawn(plot, data_path));
    }
    testing::Test::RecordProperty("artifacts", dir);
    gpulab::record_figure((plot.drawn_or_queued() ? std::to_string(pictures.size()) + " heat maps drawn"
                                      : "heat maps " + not_drawn(plot, data_path)) +
                              ", worst rel L2 " + sci(worst),
                          "report; each frame <= " + sci(tol, 0));
    GPULAB_EXPECT(problems.str().empty()) << "The snapshots of the handout's solve (solve called with tmax = "
                                          << every << " from each frame to the next, " << kernel_name(kernel)
                                          << " kernel) do not match the oracle:" << problems.str();
}

// Time per step (step kernel + boundary kernel) for growing M x M grids, both of the student's
// kernels: a table in the log, a CSV and a log-log plot of it in the artifacts folder.
TEST(Report, ScalingStudy) {
    GPULAB_REQUIRE_GPU();
    const Json& spec = section("scaling");
    const Json& gaussian = config_at(section("solve"), "gaussian");
    const double k = gaussian.at("k"), length = gaussian.at("length"), tmax = gaussian.at("tmax");
    gpulab::TimingOptions options;
    options.warmup = spec.at("warmup");
    options.samples = spec.at("samples");
    const std::string dir = gpulab::artifact_dir();
    const std::string csv_path = dir + "/heat2d_scaling.csv", png_path = dir + "/heat2d_scaling.png";
    std::ofstream csv(csv_path);
    csv << "M,cells,naive_ms_per_step,tiled_ms_per_step,naive_gbs,tiled_gbs,steps_to_tmax,naive_solve_s,tiled_solve_s\n";
    std::ostringstream table;
    table << "      M        cells   naive ms/step   tiled ms/step   naive GB/s   tiled GB/s   steps to t=" << tmax
          << "   naive solve   tiled solve\n";
    std::vector<double> ms_naive, ms_tiled, sizes;
    for (int M : spec.at("sizes")) {
        const Grid g{M, M};
        auto rng = gpulab::Rng::for_current_test();
        GuardedDeviceArray<float> a(g.cells()), b(g.cells());
        a.upload(random_insulated_field(rng, g));
        const auto samples = gpulab::time_interleaved(
            {[&] {
                 student().launch_step_naive(a.data(), b.data(), M, M, 0.2f);
                 student().launch_boundary(b.data(), M, M);
             },
             [&] {
                 student().launch_step_tiled(a.data(), b.data(), M, M, 0.2f);
                 student().launch_boundary(b.data(), M, M);
             }},
            options);
        double naive = samples[0].median(), tiled = samples[1].median();
        const double cells = double(M) * M, bytes = 8.0 * cells;
        // No figure above what the GPU can move: a device copy of the same size, with the floor's margin where
        // the field is far larger than L2 and four times that where it may stay in L2. A launch that fast
        // remembered its answer instead of computing it; it is left out of the table (NaN).
        const double copy_gbs = gpulab::copy_bandwidth_gbs(g.cells() * sizeof(float), options);
        const double limit_gbs = copy_gbs * (M >= 2048 ? double(section("speed").at("floor_margin")) : 4.0);
        if (bytes / (naive * 1e6) > limit_gbs) naive = NAN;
        if (bytes / (tiled * 1e6) > limit_gbs) tiled = NAN;
        const int steps = oracle::steps_to(k, length / M, tmax);
        sizes.push_back(M);
        ms_naive.push_back(naive);
        ms_tiled.push_back(tiled);
        csv << M << "," << std::llround(cells) << "," << naive << "," << tiled << "," << bytes / (naive * 1e6) << ","
            << bytes / (tiled * 1e6) << "," << steps << "," << steps * naive / 1e3 << "," << steps * tiled / 1e3 << "\n";
        char line[256];
        std::snprintf(line, sizeof line, "%7d %12.0f %15.4f %15.4f %12.0f %12.0f %14d %12.3g s %12.3g s\n", M, cells,
                      naive, tiled, bytes / (naive * 1e6), bytes / (tiled * 1e6), steps, steps * naive / 1e3,
                      steps * tiled / 1e3);
        table << line;
    }
    csv.close();
    const gpulab::PlotOutcome plot =
        gpulab::draw_plot("heat2d-scaling", csv_path, {"--out", png_path, "--title", gpulab::device_facts().name});
    std::cout << "[lab 02] scaling study: time per step (your step kernel + your boundary kernel), median of "
              << options.samples << "\n"
              << table.str() << "[lab 02] written: " << csv_path << "\n";
    if (plot.drawn_or_queued()) std::cout << "[lab 02] plot (log-log, ms per step against M): " << png_path << "\n";
    else std::cout << "[lab 02] plot " << not_drawn(plot, csv_path) << "\n" << plot.output;
    testing::Test::RecordProperty("pictures", plot.drawn_or_queued() ? png_path : not_drawn(plot, csv_path));
    testing::Test::RecordProperty("scaling_table", table.str());
    testing::Test::RecordProperty("artifacts", dir);
    gpulab::record_figure("naive " + fixed(ms_naive.back(), 3) + " ms, tiled " + fixed(ms_tiled.back(), 3) +
                              " ms a step at M = " + std::to_string(int(sizes.back())) + "; table in " + csv_path,
                          "report only");
}

// ---- Instantiations ----------------------------------------------------------------------------------

INSTANTIATE_TEST_SUITE_P(Sizes, NaiveStep, testing::ValuesIn(step_cases()), step_case_name);
INSTANTIATE_TEST_SUITE_P(Sizes, TiledStep, testing::ValuesIn(step_cases()), step_case_name);
INSTANTIATE_TEST_SUITE_P(Sizes, StepScope, testing::ValuesIn(scope_cases()),
                         [](const testing::TestParamInfo<ScopeCase>& info) {
                             return std::string(kernel_name(info.param.kernel)) + "_" + size_name(info.param.g);
                         });
INSTANTIATE_TEST_SUITE_P(Sizes, Boundary, testing::ValuesIn(grids_of(section("boundary").at("sizes"))),
                         [](const testing::TestParamInfo<Grid>& info) { return size_name(info.param); });
std::vector<SolveParam> solve_params() {
    std::vector<SolveParam> params;
    for (const std::string& name : solve_case_names())
        for (int kernel : {kNaiveKernel, kTiledKernel}) params.push_back({name, kernel});
    return params;
}

INSTANTIATE_TEST_SUITE_P(Starts, Solve, testing::ValuesIn(solve_params()),
                         [](const testing::TestParamInfo<SolveParam>& info) {
                             return info.param.start + "_" + kernel_name(info.param.kernel);
                         });
INSTANTIATE_TEST_SUITE_P(Kernels, Stability, testing::Values(kNaiveKernel, kTiledKernel),
                         [](const testing::TestParamInfo<int>& info) { return std::string(kernel_name(info.param)); });
INSTANTIATE_TEST_SUITE_P(Kernels, Technique, testing::Values(kNaiveKernel, kTiledKernel),
                         [](const testing::TestParamInfo<int>& info) { return std::string(kernel_name(info.param)); });

}  // namespace
