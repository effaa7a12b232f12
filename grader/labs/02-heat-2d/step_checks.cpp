#include "step_checks.h"

#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>

namespace heat_2d_grading {

using gpulab::fixed;
using gpulab::first_difference;
using gpulab::GuardedDeviceArray;
using gpulab::num;
using gpulab::same_bits;
using gpulab::sci;

namespace {

// A signalling NaN with a payload of its own: arithmetic never produces it (it yields quiet NaNs),
// so only a kernel that never wrote a cell leaves it there.
float sentinel() {
    const std::uint32_t bits = 0x7FBADBADu;
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
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

}  // namespace

std::vector<StepCase> step_cases() {
    return heat_grading::step_cases<Grid>(section("step"), [](const Json& size) {
        return Grid{size.at(0).get<int>(), size.at(1).get<int>()};
    });
}

std::string step_case_name(const testing::TestParamInfo<StepCase>& info) {
    return size_name(info.param.grid) + "_r" + gpulab::name_safe(info.param.r);
}

void check_step(int kernel, const StepCase& param) {
    const Grid g = param.grid;
    const float r = float(param.r);
    const gpulab::Tolerance tol{section("step").at("rel_tol"), section("step").at("abs_tol")};
    auto rng = gpulab::Rng::for_current_test();
    const std::vector<float> in = heat_grading::draw_visibly_changed(
        [&] { return random_field(rng, g); }, [&](const std::vector<float>& f) { return expected_interior(f, g, double(r)); },
        [&](const std::vector<float>& f) { return interior_of(f, g); }, 100 * tol.allowed(2.0));
    GPULAB_ASSERT(!in.empty()) << "grader error: the random input is too smooth";
    const std::vector<double> expected = expected_interior(in, g, double(r));
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

// Both step kernels at the timed size, in a dry run (gpulab/launch_geometry.h): instances of their MatchesOracle.
// Their buffers as speed.cpp's timed_step draws them: temperatures 0.5 ... 2.5 in `in`, the output not read.
std::vector<gpulab::GeometryCheck> timed_geometry_checks() {
    const int N = section("speed").at("N");
    const Grid g{N, N};
    const gpulab::BufferDraw in = gpulab::BufferDraw::floats(gpulab::FreshDraw{0, 0.5f, 1.0f / (1 << 19)});
    std::vector<gpulab::GeometryCheck> checks;
    for (int kernel : {kNaiveKernel, kTiledKernel})
        checks.push_back({kernel == kTiledKernel ? "TiledStep" : "NaiveStep", "MatchesOracle", size_name(g),
                          std::string(launcher_name(kernel)) + " at " + size_name(g),
                          {g.cells() * sizeof(float), g.cells() * sizeof(float)}, [kernel, N](const std::vector<void*>& b) {
                              step_of(student(), kernel)(static_cast<float*>(b[0]), static_cast<float*>(b[1]), N, N, 0.2f);
                          }, {in, gpulab::BufferDraw::output_like(in)}});
    return checks;
}

std::vector<ScopeCase> scope_cases() {
    std::vector<ScopeCase> cases;
    for (int kernel : {kNaiveKernel, kTiledKernel})
        for (const Grid& g : grids_of(section("scope").at("sizes"))) cases.push_back({kernel, g});
    return cases;
}

std::string scope_case_name(const testing::TestParamInfo<ScopeCase>& info) {
    return std::string(kernel_name(info.param.kernel)) + "_" + size_name(info.param.g);
}

void check_step_scope(const ScopeCase& c) {
    const auto [kernel, g] = c;
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

std::string grid_name(const testing::TestParamInfo<Grid>& info) { return size_name(info.param); }

void check_boundary(const Grid& g) {
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

}  // namespace heat_2d_grading
