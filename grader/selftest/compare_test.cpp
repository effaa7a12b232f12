// The comparator must fail wrong output, pass right output, and name the likely cause.
#include "gpulab/compare.h"
#include "gpulab/guarded_array.h"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using gpulab::compare;
using gpulab::Shape;

std::vector<double> ramp(std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = 1.0 + 0.001 * double(i);
    return v;
}

std::vector<float> as_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

Shape line(std::size_t n) {
    Shape s;
    s.nx = n;
    return s;
}

TEST(Compare, AcceptsFloatRoundingOfTheOracle) {
    const auto expected = ramp(1000);
    const auto result = compare(as_float(expected), expected, line(1000), {1e-6, 1e-7});
    EXPECT_TRUE(result.ok()) << result.explain("ramp");
}

TEST(Compare, RejectsOneWrongCellAndSaysWhere) {
    const auto expected = ramp(1000);
    auto actual = as_float(expected);
    actual[517] += 1e-3f;
    const auto result = compare(actual, expected, line(1000), {1e-5, 1e-6});
    EXPECT_EQ(result.wrong, 1u);
    EXPECT_NE(result.explain("step").find("cell 517"), std::string::npos) << result.explain("step");
}

TEST(Compare, NaNIsNeverWithinTolerance) {
    const auto expected = ramp(10);
    auto actual = as_float(expected);
    actual[3] = std::nanf("");
    EXPECT_EQ(compare(actual, expected, line(10), {1, 1}).wrong, 1u);
}

TEST(Compare, ReportsUnwrittenTailAsGridTooSmall) {
    const auto expected = ramp(1000);
    auto actual = as_float(expected);
    for (std::size_t i = 768; i < 1000; ++i) actual[i] = gpulab::poison_value<float>();
    const auto result = compare(actual, expected, line(1000), {1e-5, 1e-6});
    EXPECT_EQ(result.unwritten, 232u);
    EXPECT_NE(gpulab::likely_cause(result).find("Round the number of blocks up"), std::string::npos);
}

// A NaN computed from a poisoned cell keeps the poison's bits on x86 (CPU execution mode): only a
// second run, on an output filled with another value, tells it from a cell never written.
TEST(Compare, SecondRunTellsComputedPoisonFromUnwritten) {
    const auto expected = ramp(100);
    auto actual = as_float(expected);
    auto second = actual;
    actual[10] = gpulab::poison_value<float>();  // never written: the fill both times
    second[10] = gpulab::second_fill();
    const float poison = gpulab::poison_value<float>();
    actual[20] = poison + 1.0f;  // computed from a poisoned value: the poison's bits again
    second[20] = poison + 1.0f;
    if (!gpulab::is_poison(actual[20])) GTEST_SKIP() << "this host does not keep a NaN operand's bits";
    const auto one_run = compare(actual, expected, line(100), {1e-5, 1e-6});
    EXPECT_EQ(one_run.unwritten, 2u);
    const auto two_runs = compare(actual, expected, line(100), {1e-5, 1e-6}, second);
    EXPECT_EQ(two_runs.wrong, 2u);
    EXPECT_EQ(two_runs.unwritten, 1u);
    const std::string text = two_runs.explain("step");
    EXPECT_NE(text.find("cell 10: never written"), std::string::npos) << text;
    EXPECT_NE(text.find("cell 20: got nan"), std::string::npos) << text;
}

TEST(Compare, ReportsNothingWritten) {
    const auto expected = ramp(100);
    const std::vector<float> actual(100, gpulab::poison_value<float>());
    const auto result = compare(actual, expected, line(100), {1e-5, 1e-6});
    EXPECT_NE(gpulab::likely_cause(result).find("No cell was written"), std::string::npos);
}

TEST(Compare, RecognisesErrorsOnBlockEdges) {
    const auto expected = ramp(4096);
    auto actual = as_float(expected);
    for (std::size_t i = 256; i < 4096; i += 256) actual[i] += 0.5f;  // the first cell of every block
    const auto result = compare(actual, expected, line(4096), {1e-5, 1e-6});
    EXPECT_NE(gpulab::likely_cause(result).find("every 256 cells"), std::string::npos) << gpulab::likely_cause(result);
}

TEST(Compare, RecognisesErrorsOnTheOuterRingIn2D) {
    Shape grid;
    grid.nx = 31;
    grid.ny = 33;
    const auto expected = ramp(grid.cells());
    auto actual = as_float(expected);
    for (std::size_t x = 0; x < grid.nx; ++x) actual[x] += 0.5f;  // the row y = 0
    const auto result = compare(actual, expected, grid, {1e-5, 1e-6});
    EXPECT_NE(gpulab::likely_cause(result).find("edge of the region"), std::string::npos);
    EXPECT_NE(result.explain("blur").find("(x=0, y=0)"), std::string::npos);
}

TEST(Compare, RelativeL2) {
    const std::vector<double> expected{3, 4};
    EXPECT_NEAR(gpulab::relative_l2_error(std::vector<float>{3.f, 4.f}, expected), 0, 1e-12);
    EXPECT_NEAR(gpulab::relative_l2_error(std::vector<float>{3.f, 4.5f}, expected), 0.1, 1e-12);
    EXPECT_TRUE(std::isinf(gpulab::relative_l2_error(std::vector<float>{3.f, std::nanf("")}, expected)));
}

}  // namespace
