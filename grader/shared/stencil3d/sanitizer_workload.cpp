// The 3D stencil labs' part of the sanitizer pass (gpulab/sanitizer_check.h), for labs 04-06 alike: every
// kernel the lab's student table has, in float and in double, launched once on a 37 x 34 x 41 grid (no tile
// divides it, and a block that walks 32 planes up z meets a second block above it), with distinct weights, on
// exactly sized buffers, for Sanitizer.NoErrors to run under compute-sanitizer.
#include "oracle.h"
#include "stencil_check.h"

#include "gpulab/grader_test.h"
#include "gpulab/sanitizer_check.h"

namespace stencil3d_grading {
namespace {

template <typename T>
void launch_once(Technique t, const Grid3& g, const Coeffs<double>& c, gpulab::Rng& rng) {
    const StencilLaunch<T> launch = student().of(t).template get<T>();
    if (!launch) return;
    const std::vector<T> in = oracle::random_field<T>(rng, g);
    // The output starts as a copy of the input: the kernels never write the boundary, and the oracle keeps it.
    gpulab::ExactDeviceArray<T> d_in(in), d_out(in);
    const std::string name = std::string(launcher_name(t)) + (sizeof(T) == 4 ? " (float)" : " (double)");
    launch(d_in.data(), d_out.data(), g.nx, g.ny, g.nz, oracle::narrow<T>(c));
    gpulab::check_student_launch(name);
    const std::vector<T> out = d_out.download();
    gpulab::Shape shape;
    shape.nx = std::size_t(g.nx), shape.ny = std::size_t(g.ny), shape.nz = std::size_t(g.nz);
    gpulab::check_workload_output(
        name, gpulab::compare(std::vector<float>(out.begin(), out.end()), oracle::sweep(in, g, c), shape, {1e-4, 1e-4}));
}

const bool kSanitizerWorkload = gpulab::add_sanitizer_workload([] {
    const Grid3 g{37, 34, 41};
    auto rng = gpulab::Rng::for_current_test();
    const Coeffs<double> c = oracle::distinct_coefficients(rng);
    for (int t = 0; t < kTechniques; ++t) {
        launch_once<float>(Technique(t), g, c, rng);
        launch_once<double>(Technique(t), g, c, rng);
    }
});

}  // namespace
}  // namespace stencil3d_grading
