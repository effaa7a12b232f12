// A timed launch must be the launch checked at the timed size, done again (gpulab/same_as_checked.h): the same
// kernels, arguments and copies to __constant__ / __device__ variables. Checked here on hand-made records, without
// a GPU; what the GPU grader records of a real launch is checked by same_as_checked_gpu_test.cu.
#include "gpulab/same_as_checked.h"
#include "gpulab/timed_work.h"

#include <gtest/gtest.h>

#include <cstring>

namespace {

using gpulab::RecordedArgument;
using gpulab::RecordedCall;
using gpulab::RecordedLaunch;
using Kind = RecordedArgument::Kind;

template <typename T>
RecordedArgument value(T v, Kind kind = Kind::value) {
    RecordedArgument a;
    a.bytes.resize(sizeof v);
    std::memcpy(a.bytes.data(), &v, sizeof v);
    a.kind = kind;
    return a;
}

RecordedArgument device_pointer(std::uintptr_t address) { return value(address, Kind::device_pointer); }

const char kTiled = 0;  // its address stands in for a compiled kernel

// ftcs_tiled(in, out, nx, ny, r, mode) as lab 02's cheat launches it.
RecordedLaunch heat_launch(int mode, std::uintptr_t in = 0x7f0000000000, std::uintptr_t out = 0x7f0010000000) {
    RecordedLaunch l;
    l.kernel = &kTiled;
    l.grid = dim3(256, 1024, 1);
    l.block = dim3(32, 8, 1);
    l.static_shared_bytes = 1360;
    l.arguments = {device_pointer(in), device_pointer(out), value(8192), value(8192), value(0.2f), value(mode)};
    l.arguments_known = true;
    return l;
}

gpulab::TimedWork checked_with(std::vector<RecordedLaunch> launches, std::vector<RecordedCall> calls = {}) {
    gpulab::TimedWork work;
    work.call = "launch_step_tiled at 8192x8192";
    work.approved = {heat_launch(0)};
    work.approved_at = "257x129";
    work.checked = std::move(launches);
    work.checked_calls = std::move(calls);
    return work;
}

RecordedCall symbol_copy(std::uint64_t digest, const std::string& preview, std::size_t launches_before = 0) {
    static const int kFlag = 0;  // its address stands in for a __device__ variable
    RecordedCall c{"cudaMemcpyToSymbol", "4 B, host to device"};
    c.symbol = &kFlag;
    c.bytes = 4;
    c.source_read = true;
    c.digest = digest;
    c.preview = preview;
    c.launches_before = launches_before;
    return c;
}

TEST(SameAsChecked, NamesTheKernelOfADemangledSignature) {
    EXPECT_EQ(gpulab::kernel_of_signature("void stencil3d::tiled<float>(float const*, float*, int, Coeffs<float, 7>)"),
              "stencil3d::tiled<float>");
    // The parameter list is the group the final ')' closes, not an anonymous namespace's.
    EXPECT_EQ(gpulab::kernel_of_signature("(anonymous namespace)::k(int, float)"), "(anonymous namespace)::k");
    // CPU execution mode names a kernel without its parameters.
    EXPECT_EQ(gpulab::kernel_of_signature("ftcs_tiled"), "ftcs_tiled");
}

TEST(SameAsChecked, WritesEachArgumentAsItsTypeReads) {
    RecordedLaunch l;
    struct Weights {
        float c[3];
    };
    l.arguments = {device_pointer(0x7f00),  value(std::uintptr_t(0)), value(std::uintptr_t(0x1)), value(-3),
                   value(4000000000u),      value(0.2f),              value(1e-300),              value(true),
                   value(Weights{{1, 2, 3}})};
    const std::string text = gpulab::arguments_text(
        "k(float const*, float*, int*, int, unsigned int, float, double, bool, Weights)", l, {3});
    EXPECT_EQ(text,
              "k(device pointer, nullptr, 0x1, *-3*, 4000000000, 0.2, 1e-300, true, {00 00 80 3f 00 00 00 40 00 00 40 40})")
        << "a flag passed in a pointer parameter that points at no device memory is shown, and compared, as a value";
    // No signature (CPU execution mode): a small value is shown as an integer.
    RecordedLaunch plain;
    plain.arguments = {value(7), value(std::int64_t(-2))};
    EXPECT_EQ(gpulab::arguments_text("ftcs_tiled", plain), "ftcs_tiled(7, -2)");
}

TEST(SameAsChecked, TheCheckedLaunchAgainPasses) {
    const auto work = checked_with({heat_launch(0)});
    EXPECT_EQ(gpulab::audit_timed_launch(work, {heat_launch(0)}, {}), "");
}

TEST(SameAsChecked, OtherDeviceBuffersAreTheSameWork) {
    // A launch function may rotate scratch buffers of its own: which buffer says nothing about the work.
    const auto work = checked_with({heat_launch(0)});
    EXPECT_EQ(gpulab::audit_timed_launch(work, {heat_launch(0, 0x7f0020000000, 0x7f0030000000)}, {}), "");
}

TEST(SameAsChecked, AModeFlagFlippedByTheCallCountFailsWithBothArgumentLists) {
    const auto work = checked_with({heat_launch(0)});
    const std::string why = gpulab::audit_timed_launch(work, {heat_launch(1)}, {});
    EXPECT_NE(why.find("arguments differ from those of the launch checked at this size (launch_step_tiled at "
                       "8192x8192"),
              std::string::npos)
        << why;
    // Both lists, the differing argument starred in each, and which one it is.
    EXPECT_NE(why.find("(device pointer, device pointer, 8192, 8192, 1045220557, *1*) in the timed launch"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("(device pointer, device pointer, 8192, 8192, 1045220557, *0*) in the checked one"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("argument 6: 1 now, 0 when checked"), std::string::npos) << why;
    EXPECT_NE(why.find("must do exactly the work that was checked"), std::string::npos) << why;
}

TEST(SameAsChecked, APointerSizedValueIsComparedByItsBytes) {
    // Classified as a value (it points at no device memory): 0 and 1 differ.
    RecordedLaunch checked = heat_launch(0), timed = heat_launch(0);
    checked.arguments.push_back(value(std::uintptr_t(0)));
    timed.arguments.push_back(value(std::uintptr_t(1)));
    const std::string why = gpulab::audit_timed_launch(checked_with({checked}), {timed}, {});
    EXPECT_NE(why.find("argument 7: 1 now, 0 when checked"), std::string::npos) << why;
}

TEST(SameAsChecked, ArgumentsRecordedOnOneSideOnlyAreNotCompared) {
    // CPU execution mode, or a driver older than CUDA 12.4, records none: the launch's shape still counts.
    RecordedLaunch unknown = heat_launch(1);
    unknown.arguments.clear();
    unknown.arguments_known = false;
    EXPECT_EQ(gpulab::audit_timed_launch(checked_with({heat_launch(0)}), {unknown}, {}), "");
}

TEST(SameAsChecked, OtherLaunchesThanTheCheckedOnesFail) {
    const auto work = checked_with({heat_launch(0)});
    RecordedLaunch smaller = heat_launch(0);
    smaller.grid = dim3(128, 1024, 1);  // half the blocks: a launch that skips work
    const std::string grid = gpulab::audit_timed_launch(work, {smaller}, {});
    EXPECT_NE(grid.find("ran other kernel launches than the launch checked at this size"), std::string::npos) << grid;
    EXPECT_NE(grid.find("grid 128x1024x1"), std::string::npos) << grid;
    EXPECT_NE(grid.find("grid 256x1024x1"), std::string::npos) << grid;
    const std::string twice = gpulab::audit_timed_launch(work, {heat_launch(0), heat_launch(0)}, {});
    EXPECT_NE(twice.find("ran other kernel launches"), std::string::npos) << twice;
}

TEST(SameAsChecked, TheSameCopiesToASymbolPass) {
    const auto work = checked_with({heat_launch(0)}, {symbol_copy(11, "00 00 00 00")});
    EXPECT_EQ(gpulab::audit_timed_launch(work, {heat_launch(0)}, {symbol_copy(11, "00 00 00 00")}), "");
}

TEST(SameAsChecked, AFlagSetInDeviceMemoryByTheCallCountFails) {
    const auto work = checked_with({heat_launch(0)}, {symbol_copy(11, "00 00 00 00")});
    const std::string other = gpulab::audit_timed_launch(work, {heat_launch(0)}, {symbol_copy(12, "01 00 00 00")});
    EXPECT_NE(other.find("copies to __constant__ or __device__ variables differ"), std::string::npos) << other;
    EXPECT_NE(other.find("= 01 00 00 00 (4 B) before the first kernel in the timed launch"), std::string::npos) << other;
    EXPECT_NE(other.find("= 00 00 00 00 (4 B) before the first kernel in the checked one"), std::string::npos) << other;
    // A flag set once, on the call that flips it, and none checked.
    const auto none = checked_with({heat_launch(0)});
    const std::string once = gpulab::audit_timed_launch(none, {heat_launch(0)}, {symbol_copy(12, "01 00 00 00")});
    EXPECT_NE(once.find("against no copy in the checked one"), std::string::npos) << once;
    // The same value, copied after the kernel instead of before it.
    const std::string later = gpulab::audit_timed_launch(work, {heat_launch(0)}, {symbol_copy(11, "00 00 00 00", 1)});
    EXPECT_NE(later.find("after the 1st kernel"), std::string::npos) << later;
    // A copy whose source the grader could not read vouches for nothing.
    RecordedCall unread = symbol_copy(11, "00 00 00 00");
    unread.source_read = false;
    EXPECT_NE(gpulab::audit_timed_launch(work, {heat_launch(0)}, {unread}).find("memory the grader cannot read"),
              std::string::npos);
}

TEST(SameAsChecked, NothingCheckedHoldsTheTimedLaunchToNothingMore) {
    // The expert's launch on the roofline: no checked launch, no approved kernels.
    gpulab::TimedWork expert;
    expert.call = "expert::launch_step at 8192x8192";
    EXPECT_EQ(gpulab::audit_timed_launch(expert, {heat_launch(1)}, {symbol_copy(12, "01 00 00 00")}), "");
}

}  // namespace
