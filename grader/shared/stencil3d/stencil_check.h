// Does one launch of a student's 3D stencil kernel compute what the oracle computes, touch nothing else,
// and leave the memory around its buffers alone? Shared by the correctness tests of labs 04-06, and by
// every other test that must first know a kernel's output is right (speed counts only for that).
#pragma once

#include "grid3.h"
#include "stencil3d_api.h"

#include "gpulab/lab_config.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace stencil3d_grading {

enum class Precision { f32, f64 };
const char* precision_name(Precision p);  // "float", "double"

template <typename T>
constexpr Precision precision_of() {
    return sizeof(T) == sizeof(float) ? Precision::f32 : Precision::f64;
}

// A grid from lab.json: [n] (a cube) or [nx, ny, nz].
Grid3 grid_of(const gpulab::Json& size);

struct StencilCase {
    Grid3 g;
    Precision precision = Precision::f32;
};

// The solution libraries of the lab being graded.
const Stencil3dApi& student();
const Stencil3dApi& reference();
// A section of the lab's config (lab.json).
const gpulab::Json& section(const char* name);

// lab.json "correctness": every size in "sizes" in every precision in "precisions".
std::vector<StencilCase> correctness_cases();
// "float_130x33x7"
std::string case_name(const testing::TestParamInfo<StencilCase>& info);

// The test body of <Technique>Stencil.MatchesOracle: random input and distinct weights, one launch
// of the student's kernel on a poisoned output, then every interior cell against the oracle, the
// boundary and the input untouched, the guard zones intact. Reports failures with GoogleTest.
void check_matches_oracle(Technique t, const StencilCase& c);

// "launch_stencil_tiled(float, 130 x 33 x 7)"
std::string call_name(Technique t, Precision p, const Grid3& g);

// Runs the student's launch function once and checks the launch; a rejected launch or a kernel that
// failed becomes a test failure that says why (returns false), not an exception.
template <typename T>
bool launch_checked(StencilLaunch<T> launch, const T* d_in, T* d_out, const Grid3& g, const Coeffs<T>& c,
                    const std::string& call);

// Per-cell tolerance: |got - expected| <= rel * (sum of the magnitudes of the seven terms).
double tolerance_of(Precision p);

// What one output holds, against the oracle: used by the correctness tests (with diagnosis) and, on
// large grids, by the speed tests before they time anything.
struct OutputReport {
    std::size_t interior = 0, wrong = 0, unwritten = 0, boundary_written = 0;
    double worst = 0;  // the largest |error| / (terms' magnitude) over written interior cells
    std::string summary;  // counts and the first few mismatches, for a failure message
    bool ok() const { return wrong == 0 && unwritten == 0 && boundary_written == 0; }
};

// `cells`, where given, gets one diagnosis::Cell per cell of the grid (what the diagnoses read).
template <typename T>
OutputReport inspect_output(const std::vector<T>& out, const std::vector<T>& in, const Grid3& g, const Coeffs<double>& c,
                            double rel_tol, const std::string& call, std::vector<std::uint8_t>* cells = nullptr);

}  // namespace stencil3d_grading
