// The transpose against the exact answer (transpose_check.h).
#include "transpose_check.h"

#include "matmul_grading.h"
#include "matrix_check.h"

#include "matmul_grading.h"
#include "matrix_check.h"
#include "oracle.h"
#include "timed_technique.h"
#include "gpulab/counted_work.h"
#include "gpulab/launch_geometry.h"
#include "gpulab/random_size.h"
#include "gpulab/compare.h"
#include "gpulab/cuda_check.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/launch_recorder.h"
#include "gpulab/phase_clock.h"
#include "gpulab/read_counter.h"
#include "gpulab/shared_reads.h"
#include "gpulab/timed_launch_count.h"
#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

namespace matmul_grading {

using gpulab::fixed;

std::vector<TransposeShape> transpose_shapes() {
    std::vector<TransposeShape> shapes;
    for (const gpulab::Json& s : section("transpose").at("shapes")) shapes.push_back({s.at(0), s.at(1)});
    return shapes;
}

void check_transpose(const TransposeShape& shape) {
    GPULAB_REQUIRE_DEVICE();
    const auto [rows, cols] = shape;
    const std::string call = "launch_transpose(rows=" + std::to_string(rows) + ", cols=" + std::to_string(cols) + ")";
    auto rng = gpulab::Rng::for_current_test();
    std::optional<gpulab::PhaseClock> phase(std::in_place, "inputs and oracle");
    const Inputs in = random_inputs(rng, {rows, 1, cols});  // A is rows x cols
    const std::vector<float> expected = matmul_oracle::transpose(in.a, rows, cols);
    phase.emplace("launch and check");
    gpulab::GuardedDeviceArray<float> d_in(in.a.size()), d_out(in.a.size());
    d_in.upload(in.a);
    std::vector<gpulab::RecordedLaunch> launches;
    {
        std::optional<gpulab::LaunchRecorder> recorder;
        if (gpulab::launch_recording_supported()) recorder.emplace();
        student().transpose(d_in.data(), d_out.data(), rows, cols);
        gpulab::check_student_launch(call);
        if (recorder) launches = recorder->launches();
    }
    const std::vector<float> out = d_out.download();
    std::size_t wrong = 0, unwritten = 0;
    std::ostringstream first;
    int shown = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (gpulab::same_bits(out[i], expected[i])) continue;
        ++wrong;
        const bool never = gpulab::is_poison(out[i]);
        unwritten += never;
        if (shown++ < 5) {
            first << "\n    out(" << i / rows << ", " << i % rows << ") should be in(" << i % rows << ", " << i / rows
                  << ") = " << gpulab::num(expected[i]) << "; ";
            if (never) first << "never written";
            else first << "got " << gpulab::num(out[i]);
        }
    }
    std::string outside;
    if (d_in.download() != in.a) outside += "\n  it changed its input";
    for (const auto& [array, report] : {std::pair{"the input", d_in.check_guards()}, {"the output", d_out.check_guards()}})
        if (!report.intact()) outside += "\n  " + report.describe(array);
    gpulab::record_figure(std::to_string(out.size() - wrong) + " of " + std::to_string(out.size()) + " exact", "every element, bit for bit");
    if (wrong == 0 && outside.empty()) return;
    std::ostringstream m;
    m << call << ":";
    if (wrong) {
        m << " " << wrong << " of " << out.size() << " elements are wrong";
        if (unwritten) m << " (" << unwritten << " never written)";
        m << ". out is cols x rows = " << cols << " x " << rows << ", out(c, r) = in(r, c) at out[c * rows + r]. The first:"
          << first.str();
        std::string cause;
        if (gpulab::launch_recording_supported() && launches.empty())
            cause = "TODO(lab-7) step 3a: launch_transpose launched no kernel, so nothing was written.";
        else if (unwritten == out.size())
            cause = "Your kernel wrote nothing: every element still holds the NaN the grader put there.";
        else if (rows != cols && out == in.a)
            cause = "out is a copy of in, not its transpose: write in(r, c) to out[c * rows + r].";
        else if (unwritten && !launches.empty()) {
            const gpulab::RecordedLaunch& l = launches.front();
            const long long across = (long long)l.grid.x * l.block.x, down = (long long)l.grid.y * l.block.y;
            if (across < cols || down < rows)
                cause = "Your grid (" + std::to_string(l.grid.x) + " x " + std::to_string(l.grid.y) + " blocks of " +
                        std::to_string(l.block.x) + " x " + std::to_string(l.block.y) +
                        " threads) does not reach every element of the " + std::to_string(rows) + " x " +
                        std::to_string(cols) + " input (if each thread copies one element). Round the grid up in both "
                        "directions; with a shared-memory tile, each block must copy its whole tile.";
        }
        if (!cause.empty()) m << "\n  Likely cause: " << cause;
    }
    if (!outside.empty()) m << "\n  Outside the output:" << outside;
    ADD_FAILURE() << m.str();
}

}  // namespace matmul_grading
