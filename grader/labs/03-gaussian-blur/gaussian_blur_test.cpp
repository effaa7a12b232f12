// The grader of lab 03 (Gaussian blur): its test cases. Points, sizes and thresholds come from
// labs/03-gaussian-blur/lab.json; the handout describes every test by the same name. Each check lives in the
// file named for it: blur_checks (the kernels on random images, frames and photos), blur_image_checks (the host
// function), technique_checks, speed; inputs makes the images, image_check explains a wrong one.
#include "blur_checks.h"
#include "blur_image_checks.h"
#include "speed.h"
#include "technique_checks.h"

#include "gpulab/grader_test.h"
#include "gpulab/read_counter.h"

namespace gaussian_blur_grading {
namespace {

// ---- The kernels: random images of awkward sizes, frames, scope, photos -----------------------------------

class Naive : public testing::TestWithParam<ImageSize> {};
class Tiled : public testing::TestWithParam<ImageSize> {};
class Borders : public testing::TestWithParam<KernelCase> {};
class Scope : public testing::TestWithParam<KernelCase> {};
class Photos : public testing::TestWithParam<PhotoCase> {};

TEST_P(Naive, MatchesOracle) { GPULAB_REQUIRE_DEVICE(); check_random_image(Kernel::naive, GetParam()); }
TEST_P(Tiled, MatchesOracle) { GPULAB_REQUIRE_DEVICE(); check_random_image(Kernel::tiled, GetParam()); }
TEST_P(Borders, ClampToEdge) { GPULAB_REQUIRE_DEVICE(); check_borders(GetParam()); }
TEST_P(Scope, WritesOnlyTheOutput) { GPULAB_REQUIRE_DEVICE(); check_scope(GetParam()); }
TEST_P(Photos, MatchOracle) { GPULAB_REQUIRE_DEVICE(); check_photo(GetParam()); }

// Names come from the arguments, so they cannot drift.
std::string image_size_name(const testing::TestParamInfo<ImageSize>& info) { return size_name(info.param); }

INSTANTIATE_TEST_SUITE_P(Images, Naive, testing::ValuesIn(random_cases()), image_size_name);
INSTANTIATE_TEST_SUITE_P(Images, Tiled, testing::ValuesIn(random_cases()), image_size_name);
// Both blur kernels at the timed size, in a dry run: instances of their MatchesOracle.
const bool kTimedGeometry = gpulab::add_geometry_checks(timed_geometry_checks);
const bool kExpertProfile = gpulab::set_expert_beside(expert_beside_launch);
INSTANTIATE_TEST_SUITE_P(Frames, Borders,
                         testing::ValuesIn(for_both_kernels(sizes_times_channels(section("borders"), "sizes"))),
                         kernel_case_name);
INSTANTIATE_TEST_SUITE_P(Images, Scope,
                         testing::ValuesIn(for_both_kernels(sizes_times_channels(section("scope"), "sizes"))),
                         kernel_case_name);
INSTANTIATE_TEST_SUITE_P(Files, Photos, testing::ValuesIn(photo_cases()), photo_case_name);

// ---- The host function ----------------------------------------------------------------------------------

TEST(BlurImage, BeforeAndAfter) { GPULAB_REQUIRE_DEVICE(); check_before_and_after(); }
TEST(BlurImage, RefusesBadInput) { check_refuses_bad_input(); }

// ---- Technique ------------------------------------------------------------------------------------------

TEST(Technique, TiledUsesSharedTile) { GPULAB_REQUIRE_GPU(); check_tiled_uses_shared_tile(); }

// Counted in CPU execution mode (gpulab-grade runs it there on a GPU machine too).
TEST(Technique, ComputesFromSharedTile) {
    GPULAB_REQUIRE_DEVICE();
    GPULAB_REQUIRE_READ_COUNTER();
    check_computes_from_shared_tile();
}

// ---- Speed, and the roofline report ---------------------------------------------------------------------

TEST(Speed, NaiveThroughput) { GPULAB_REQUIRE_GPU(); check_speed(Kernel::naive); }
TEST(Speed, TiledThroughput) { GPULAB_REQUIRE_GPU(); check_speed(Kernel::tiled); }
TEST(Report, Roofline) { GPULAB_REQUIRE_GPU(); report_roofline(); }

}  // namespace
}  // namespace gaussian_blur_grading
