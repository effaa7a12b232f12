// Paths fixed when gpulab-grade is built. They live in a file of their own, compiled alone
// (built_in_paths.cpp): an absolute path inside a source makes its object differ between two copies
// of the tree, and a compiler cache (make test's ccache) could then not give a class workspace or
// the unpacked release the main build's objects for the sources around it.
#pragma once

namespace gpulab::runner {

// allowed_calls.json in the source tree: what solutions may call (call_policy.h).
const char* call_policy_path();
// The build folder gpulab-grade was built in: --build-dir's default.
const char* default_build_dir();

}  // namespace gpulab::runner
