// A shell script standing in for Python in the picture tests (GPULAB_PYTHON, gpulab/plot.h), so that what is tested
// is the grader's side (a queue, a server, a hang, a crash) and no matplotlib is needed.
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace gpulab_selftest {

// Writes <dir>/python running `body` under /bin/sh and makes it GPULAB_PYTHON. A picture drawn alone runs
// `python script kind data [--out PNG]` ($1 ... $5); a PlotServer runs `python script --serve` ($2 is --serve).
inline void stand_in_python(const std::filesystem::path& dir, const std::string& body) {
    const std::filesystem::path path = dir / "python";
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    ::chmod(path.c_str(), 0755);
    ::setenv("GPULAB_PYTHON", path.c_str(), 1);
}

}  // namespace gpulab_selftest
