#include "stencil_check.h"

#include "diagnosis.h"
#include "oracle.h"

#include "gpulab/compare.h"
#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/parallel_for.h"
#include "gpulab/random.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>

namespace stencil3d_grading {

using gpulab::num;
using gpulab::sci;

const char* precision_name(Precision p) { return p == Precision::f32 ? "float" : "double"; }

Grid3 grid_of(const gpulab::Json& size) {
    return size.size() == 1 ? Grid3{size.at(0), size.at(0), size.at(0)} : Grid3{size.at(0), size.at(1), size.at(2)};
}

const Stencil3dApi& student() {
    return gpulab::lab_api<Stencil3dApi>(gpulab::Role::student, gpulab::lab_config().at("lab").get<std::string>());
}
const Stencil3dApi& reference() {
    return gpulab::lab_api<Stencil3dApi>(gpulab::Role::reference, gpulab::lab_config().at("lab").get<std::string>());
}
const gpulab::Json& section(const char* name) { return gpulab::config_at(gpulab::lab_config(), name); }

std::vector<StencilCase> correctness_cases() {
    std::vector<StencilCase> cases;
    for (const std::string p : section("correctness").at("precisions"))
        for (const gpulab::Json& size : section("correctness").at("sizes")) {
            cases.push_back({grid_of(size), p == "double" ? Precision::f64 : Precision::f32});
        }
    return cases;
}

std::string case_name(const testing::TestParamInfo<StencilCase>& info) {
    return std::string(precision_name(info.param.precision)) + "_" + info.param.g.name();
}

std::string call_name(Technique t, Precision p, const Grid3& g) {
    return std::string(launcher_name(t)) + "(" + precision_name(p) + ", " + std::to_string(g.nx) + " x " +
           std::to_string(g.ny) + " x " + std::to_string(g.nz) + ")";
}

double tolerance_of(Precision p) {
    return section("correctness").at(p == Precision::f32 ? "float_rel_tol" : "double_rel_tol").get<double>();
}

template <typename T>
bool launch_checked(StencilLaunch<T> launch, const T* d_in, T* d_out, const Grid3& g, const Coeffs<T>& c,
                    const std::string& call) {
    try {
        launch(d_in, d_out, g.nx, g.ny, g.nz, c);
        gpulab::check_student_launch(call);
        return true;
    } catch (const gpulab::CudaError& e) {
        ADD_FAILURE() << e.what();
        return false;
    }
}

namespace {

// A signalling NaN with a payload of its own, which arithmetic never produces: only a kernel that never
// wrote a cell leaves it there (the second run that tells unwritten cells from computed NaNs).
template <typename T>
T second_fill() {
    if constexpr (sizeof(T) == sizeof(float)) {
        return gpulab::second_fill();
    } else {
        const std::uint64_t bits = 0x7FF4BADBADBADBADull;
        T value;
        std::memcpy(&value, &bits, sizeof value);
        return value;
    }
}

}  // namespace

template <typename T>
OutputReport inspect_output(const std::vector<T>& out, const std::vector<T>& in, const Grid3& g, const Coeffs<double>& c,
                            double rel_tol, const std::string& call, std::vector<std::uint8_t>* cells) {
    OutputReport report;
    if (cells) cells->assign(g.cells(), diagnosis::ok);
    report.interior = g.interior_cells();
    // Planes in parallel (a 512^3 output is seconds on one core), each chunk of planes with its own tally,
    // merged in plane order: the cells listed are the first ones in memory order, as on one thread.
    struct Tally {
        std::size_t wrong = 0, unwritten = 0, boundary_written = 0;
        double worst = 0;
        std::vector<std::string> listed;  // the chunk's first wrong cells, at most 7
        std::string first_boundary;
    };
    const std::size_t plane = std::size_t(g.nx) * std::size_t(g.ny);
    const std::size_t min_planes = std::max<std::size_t>(1, (std::size_t(1) << 15) / std::max<std::size_t>(plane, 1));
    std::vector<Tally> tallies(gpulab::parallel_chunks(std::size_t(g.nz), min_planes));
    gpulab::parallel_for(std::size_t(g.nz), [&](std::size_t chunk, std::size_t z_begin, std::size_t z_end) {
        Tally& t = tallies[chunk];
        for (int z = int(z_begin); z < int(z_end); ++z)
            for (int y = 0; y < g.ny; ++y)
                for (int x = 0; x < g.nx; ++x) {
                    const T got = out[g.at(x, y, z)];
                    if (!g.interior(x, y, z)) {
                        if (!gpulab::is_poison(got) && t.boundary_written++ == 0)
                            t.first_boundary = cell_name(x, y, z) + " = " + num(double(got));
                        continue;
                    }
                    double scale = 0;
                    const double want = oracle::at(in, g, c, x, y, z, &scale);
                    const bool never = gpulab::is_poison(got);
                    const double error = std::fabs(double(got) - want);
                    if (!never && error <= rel_tol * scale) {
                        t.worst = std::max(t.worst, scale > 0 ? error / scale : 0.0);
                        continue;
                    }
                    ++t.wrong;
                    t.unwritten += never;
                    if (cells) (*cells)[g.at(x, y, z)] = never ? diagnosis::unwritten : diagnosis::wrong;
                    if (t.listed.size() < 7)
                        t.listed.push_back("\n    " + cell_name(x, y, z) + ": expected " + num(want) + ", got " +
                                           (never ? "nothing (never written)" : num(double(got))));
                }
    }, min_planes);
    std::ostringstream first;
    std::size_t listed = 0;
    std::string first_boundary;
    for (const Tally& t : tallies) {
        report.wrong += t.wrong;
        report.unwritten += t.unwritten;
        report.worst = std::max(report.worst, t.worst);
        if (report.boundary_written == 0 && t.boundary_written) first_boundary = t.first_boundary;
        report.boundary_written += t.boundary_written;
        for (const std::string& line : t.listed)
            if (listed++ < 6) first << line;
    }
    std::ostringstream s;
    if (report.wrong)
        s << call << ": " << report.wrong << " of the " << report.interior << " interior cells are wrong"
          << (report.unwritten ? " (" + std::to_string(report.unwritten) + " never written)" : std::string()) << "; "
          << "allowed per cell: " << sci(rel_tol, 0) << " x the sum of the seven terms' magnitudes." << first.str()
          << (listed > 6 ? "\n    ..." : "");
    if (report.boundary_written)
        s << (report.wrong ? "\n  " : "") << call << " wrote " << report.boundary_written
          << " boundary cell(s), the first " << first_boundary
          << ". Boundary cells (x = 0 or nx-1, y = 0 or ny-1, z = 0 or nz-1) are read, never written: does every "
             "thread check 1 <= x <= nx-2, 1 <= y <= ny-2 and 1 <= z <= nz-2 before it stores?";
    report.summary = s.str();
    return report;
}

namespace {

template <typename T>
void check_case(Technique t, const StencilCase& param) {
    const Grid3 g = param.g;
    const double rel_tol = tolerance_of(param.precision);
    auto rng = gpulab::Rng::for_current_test();
    const Coeffs<double> c = oracle::distinct_coefficients(rng);
    const std::vector<T> in = oracle::random_field<T>(rng, g);
    gpulab::GuardedDeviceArray<T> d_in(g.cells()), d_out(g.cells());
    d_in.upload(in);
    const StencilLaunch<T> launch = student().of(t).get<T>();
    const std::string call = call_name(t, param.precision, g);
    if (!launch_checked(launch, d_in.data(), d_out.data(), g, oracle::narrow<T>(c), call)) return;

    std::vector<T> out = d_out.download();
    OutputReport report = inspect_output(out, in, g, c, rel_tol, call);
    std::vector<std::uint8_t> cells;
    if (!report.ok()) {
        // Cells that hold the poison may hold a NaN the kernel computed from it: run again on an output
        // filled with another pattern, and count as never written only what still holds that one.
        gpulab::GuardedDeviceArray<T> d_again(g.cells());
        d_again.upload(std::vector<T>(g.cells(), second_fill<T>()));
        launch(d_in.data(), d_again.data(), g.nx, g.ny, g.nz, oracle::narrow<T>(c));
        gpulab::check_student_launch(call + " (run again to tell cells never written from computed NaNs)");
        const std::vector<T> again = d_again.download();
        const T fill = second_fill<T>();
        for (std::size_t i = 0; i < out.size(); ++i)
            if (gpulab::is_poison(out[i]) && !gpulab::same_bits(again[i], fill))
                out[i] = std::numeric_limits<T>::quiet_NaN();
        report = inspect_output(out, in, g, c, rel_tol, call, &cells);
    }

    std::size_t input_changed = 0;
    const long first_change = gpulab::first_difference(d_in.download(), in, &input_changed);
    const gpulab::GuardReport in_guards = d_in.check_guards(), out_guards = d_out.check_guards();
    gpulab::record_figure(report.ok() ? "max err " + sci(report.worst) + " of |terms|"
                                      : std::to_string(report.wrong) + " wrong, " +
                                            std::to_string(report.boundary_written) + " boundary written",
                          "per cell " + sci(rel_tol, 0) + " x |terms|");
    GPULAB_EXPECT(input_changed == 0)
        << call << " changed its INPUT array at " << input_changed << " cell(s), the first at index " << first_change
        << ". A stencil reads `in` and writes `out`: updating in place races, because a block can read a neighbour "
           "another block has already overwritten.";
    GPULAB_EXPECT(in_guards.intact()) << call << ": " << in_guards.describe("the input array");
    GPULAB_EXPECT(out_guards.intact()) << call << ": " << out_guards.describe("the output array");
    if (report.ok()) return;

    std::ostringstream advice;
    const auto add = [&](const std::string& sentence) {
        if (!sentence.empty()) advice << "\n  Likely cause: " << sentence;
    };
    if (report.wrong > report.unwritten && report.unwritten == 0)
        add(diagnosis::swapped_weights(oracle::widen(out), oracle::widen(in), g, c, rel_tol));
    if (advice.str().empty()) add(diagnosis::plane_pattern(cells, g));
    if (advice.str().empty() && report.unwritten) add(diagnosis::coverage_pattern(cells, g));
    if (advice.str().empty()) add(diagnosis::tile_face_pattern(cells, g));
    // A lab with a naive kernel too: if the student's naive kernel gets this case right, the formula is fine.
    if (t != Technique::naive && student().of(Technique::naive).get<T>() && report.wrong) {
        gpulab::GuardedDeviceArray<T> d_naive(g.cells());
        student().of(Technique::naive).get<T>()(d_in.data(), d_naive.data(), g.nx, g.ny, g.nz, oracle::narrow<T>(c));
        if (cudaDeviceSynchronize() == cudaSuccess && cudaGetLastError() == cudaSuccess &&
            inspect_output(d_naive.download(), in, g, c, rel_tol, "").ok())
            advice << "\n  Your naive kernel gets this case right, so the formula is fine: the difference is in how the "
                   << technique_name(t) << " kernel fills its shared tile (halo cells, tiles cut short at the grid's far "
                   << "edges) and whether every thread waits (__syncthreads()) before reading it.";
    }
    ADD_FAILURE() << report.summary << advice.str();
}

}  // namespace

void check_matches_oracle(Technique t, const StencilCase& c) {
    if (c.precision == Precision::f32) check_case<float>(t, c);
    else check_case<double>(t, c);
}

template bool launch_checked(StencilLaunch<float>, const float*, float*, const Grid3&, const Coeffs<float>&,
                             const std::string&);
template bool launch_checked(StencilLaunch<double>, const double*, double*, const Grid3&, const Coeffs<double>&,
                             const std::string&);
template OutputReport inspect_output(const std::vector<float>&, const std::vector<float>&, const Grid3&,
                                     const Coeffs<double>&, double, const std::string&, std::vector<std::uint8_t>*);
template OutputReport inspect_output(const std::vector<double>&, const std::vector<double>&, const Grid3&,
                                     const Coeffs<double>&, double, const std::string&, std::vector<std::uint8_t>*);

}  // namespace stencil3d_grading
