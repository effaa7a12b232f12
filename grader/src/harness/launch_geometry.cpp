#include "gpulab/launch_geometry.h"

#include "gpulab/cuda_check.h"
#include "gpulab/device_facts.h"
#include "gpulab/device_resources.h"
#include "gpulab/grader_test.h"
#include "gpulab/launch_deadline.h"

#ifdef GPULAB_CPU_MODE
#include <gpulab_cpu/launch_observer.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>

namespace gpulab {
namespace {

std::vector<std::function<std::vector<GeometryCheck>()>>& pending() {
    static std::vector<std::function<std::vector<GeometryCheck>()>> makers;
    return makers;
}

std::vector<GeometryCheck>& registered() {
    static std::vector<GeometryCheck> checks;
    return checks;
}

// CPU execution mode cannot afford the timed sizes' buffers, and a dry run never touches them: a page each.
constexpr std::size_t kCpuBufferBytes = 4096;
// A dry run of a launch function takes microseconds; one that multiplies 4096^3 on the host takes minutes. Three
// seconds tell them apart even on a machine busy with a dozen gradings, and cost a caught cheat little: make test
// meets this limit six times (07-matmul's host-computing cheats, on the GPU and in CPU execution mode).
constexpr double kDryRunLimitMs = 3000;

class GeometryTest : public testing::Test {
public:
    explicit GeometryTest(GeometryCheck check) : check_(std::move(check)) {}
    void TestBody() override {
        GPULAB_REQUIRE_DEVICE();
        std::vector<DeviceBytes> buffers;
        std::vector<void*> pointers;
        for (std::size_t bytes : check_.buffer_bytes) {
            buffers.emplace_back(device_facts().emulated ? std::min(bytes, kCpuBufferBytes) : bytes);
            pointers.push_back(buffers.back().get());
        }
        std::vector<RecordedLaunch> launches;
        {
            // A dry run launches nothing: microseconds. A launch function that computes on the host does not end.
            LaunchDeadline deadline(kDryRunLimitMs, check_.call + " took more than " + std::to_string(int(kDryRunLimitMs / 1000)) +
                                                        " s in a run that launches no kernel: it computes on the host "
                                                        "(which the speed tests stop as too slow to time).");
            launches = dry_run([&] { check_.launch(pointers); });
        }
        cudaGetLastError();  // a dry run launched nothing that could fail
        GPULAB_ASSERT(!launches.empty()) << check_.call << " launched no kernel (checked without running it).";
        for (const RecordedLaunch& l : launches) {
            const std::string problem = invalid_configuration(l.grid, l.block);
            GPULAB_EXPECT(problem.empty())
                << check_.call << ", a size the speed tests time on a GPU: " << problem
                << ". Every GPU refuses this launch. (Checked without running the kernel, in CPU execution mode as "
                   "on a GPU: the correctness sizes are smaller, so this is where a block that grows with the "
                   "problem shows. Are grid and block swapped in <<<grid, block>>>?)";
        }
    }

private:
    GeometryCheck check_;
};

}  // namespace

std::size_t BufferDraw::element_bytes() const {
    switch (type) {
        case Type::f32: return sizeof(float);
        case Type::f64: return sizeof(double);
        case Type::u8: return 1;
        case Type::undescribed: break;
    }
    return 0;
}

std::string BufferDraw::describe() const {
    std::ostringstream out;
    if (output) out << "output (not read): ";
    if (type == Type::undescribed) return out.str() + "not described";
    if (type == Type::u8) return out.str() + "bytes 0 ... 255";
    out << (type == Type::f32 ? "floats " : "doubles ") << draw.lo << " ... " << draw.lo + double(draw.step) * (1 << 20)
        << " (FreshDraw lo " << draw.lo << ", step 2^" << std::lround(std::log2(double(draw.step))) << ")";
    return out.str();
}

void BufferDraw::write_values(std::uint64_t seed, void* dst, std::size_t offset, std::size_t len) const {
    FreshDraw d = draw;
    d.seed = seed;
    const std::size_t size = element_bytes();
    auto* out = static_cast<unsigned char*>(dst);
    if (size == 0) {  // undescribed: never counted (count_timed_launch refuses it); zeros all the same
        std::memset(out, 0, len);
        return;
    }
    for (std::size_t i = 0; i < len;) {
        // The element holding byte offset + i, and which of its bytes that is (a page may start inside one).
        const std::size_t at = offset + i, element = at / size, first = at % size;
        unsigned char value[sizeof(double)];
        if (type == Type::f32) {
            const float v = float(d.at(element));
            std::memcpy(value, &v, sizeof v);
        } else if (type == Type::f64) {
            const double v = d.at(element);
            std::memcpy(value, &v, sizeof v);
        } else {
            value[0] = d.byte_at(element);
        }
        const std::size_t n = std::min(size - first, len - i);
        std::memcpy(out + i, value + first, n);
        i += n;
    }
}

std::vector<GeometryCheck> drawn_as(std::vector<GeometryCheck> checks, const std::vector<BufferDraw>& draws) {
    for (GeometryCheck& check : checks) check.draws = draws;
    return checks;
}

bool add_geometry_checks(std::function<std::vector<GeometryCheck>()> make) {
    pending().push_back(std::move(make));
    return true;
}

void register_geometry_checks() {
    for (const auto& make : pending()) {
        std::vector<GeometryCheck> checks;
        try {
            checks = make();
        } catch (const std::exception&) {
            continue;  // a broken config fails the tests that read it; these are left out
        }
        for (GeometryCheck& check : checks) {
            registered().push_back(check);
            const std::string suite = "TimedSizes/" + check.suite, name = check.test + "/" + check.instance + "_geometry";
            testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                                  [check]() -> testing::Test* { return new GeometryTest(check); });
        }
    }
    pending().clear();
}

std::vector<GeometryCheck> timed_launches(const std::string& suite) {
    std::vector<GeometryCheck> out;
    for (const GeometryCheck& check : registered())
        if (suite.empty() || check.suite == suite) out.push_back(check);
    return out;
}

std::vector<RecordedLaunch> dry_run(const std::function<void()>& launch) {
    LaunchRecorder recorder;
#ifdef GPULAB_CPU_MODE
    cpu::set_dry_run(true);
    launch();
    cpu::set_dry_run(false);
#else
    set_gpu_dry_run(true);
    launch();
    set_gpu_dry_run(false);
#endif
    return recorder.launches();
}

}  // namespace gpulab
