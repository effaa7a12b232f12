// The grader of lab 07 (matrix multiply): its cases. Points, shapes and tolerances come from labs/07-matmul/lab.json;
// the handout describes every test by the same name. The checks are in product_checks.cpp, transpose_check.cpp and
// technique_checks.cpp, speed and the cuBLAS bar in speed.cpp, the roofline in roofline.cpp and the comparison study
// in comparison_study.cpp.
#include "comparison_study.h"
#include "matmul_grading.h"
#include "product_checks.h"
#include "roofline.h"
#include "speed.h"
#include "technique_checks.h"
#include "transpose_check.h"

#include "gpulab/launch_geometry.h"

#include <string>
#include <vector>

namespace {

using namespace matmul_grading;

std::string shape_test_name(const testing::TestParamInfo<Shape>& info) {
    return "m" + std::to_string(info.param.m) + "_n" + std::to_string(info.param.n) + "_k" + std::to_string(info.param.k);
}

std::vector<Shape> correctness_shapes() { return shapes_of(section("correctness").at("shapes_mnk")); }

// The reports (no points), first in the order GoogleTest runs them.
TEST(Report, ComparisonStudy) { report_comparison_study(); }
TEST(Report, Roofline) { report_roofline(); }
TEST(Report, CublasBar) { report_cublas_bar(); }

class Naive : public testing::TestWithParam<Shape> {};
class Tiled : public testing::TestWithParam<Shape> {};
class NaiveBt : public testing::TestWithParam<Shape> {};
class TiledBt : public testing::TestWithParam<Shape> {};

// Every product kernel at the timed sizes, in a dry run (gpulab/launch_geometry.h): instances of its MatchesOracle.
// Their buffers as timed_product.cpp draws them (A and B: FreshDraw's -1 ... 1; C not read), for the launches
// counted in their place.
const bool kTimedGeometry = gpulab::add_geometry_checks([] {
    const gpulab::BufferDraw operand = gpulab::BufferDraw::floats(gpulab::FreshDraw{});
    std::vector<gpulab::GeometryCheck> checks;
    for (int n : section("speed").at("sizes").get<std::vector<int>>())
        for (Kernel kernel : kKernels) {
            // The call the speed tests time (speed.cpp: the student's launch on N x N buffers, m = n = k = N).
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

class Transpose : public testing::TestWithParam<TransposeShape> {};

TEST_P(Transpose, Exact) { check_transpose(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Shapes, Transpose, testing::ValuesIn(transpose_shapes()),
                         [](const testing::TestParamInfo<TransposeShape>& info) {
                             return "rows" + std::to_string(info.param.rows) + "_cols" + std::to_string(info.param.cols);
                         });

// The compiled kernels' shared memory, read from their launches: the tiled ones need room for a tile of A
// and one of B; the naive ones none (a tiled kernel in a naive slot would pass the naive speed bar).
TEST(Technique, TiledUsesSharedMemory) { check_tiled_uses_shared_memory(); }
// How often the tiled kernels read A and B, on small shapes and on the launches the speed tests time.
TEST(Technique, ComputesFromSharedTiles) { check_computes_from_shared_tiles(); }

class Speed : public testing::TestWithParam<int> {};

TEST_P(Speed, NaiveThroughput) { check_speed(Kernel::naive, GetParam()); }
TEST_P(Speed, TiledThroughput) { check_speed(Kernel::tiled, GetParam()); }
TEST_P(Speed, TiledBtThroughput) { check_speed(Kernel::tiled_bt, GetParam()); }

INSTANTIATE_TEST_SUITE_P(Sizes, Speed, testing::ValuesIn(section("speed").at("sizes").get<std::vector<int>>()),
                         [](const testing::TestParamInfo<int>& info) { return "N" + std::to_string(info.param); });

TEST(Speed, TiledOverNaive) { check_tiled_over_naive(); }

}  // namespace
