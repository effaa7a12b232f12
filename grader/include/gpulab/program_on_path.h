// Finding a program the grader runs (python3 for the pictures, compute-sanitizer, the build tools a class's sandbox
// needs): one rule for every such search. Header-only, because the class reports compile plot.cpp apart from the
// harness (grader/CMakeLists.txt says why).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

namespace gpulab {

// A file this process may run: executable, and not a folder (which access(X_OK) also lets through).
inline bool is_program_file(const std::string& path) {
    std::error_code ignored;
    return !path.empty() && ::access(path.c_str(), X_OK) == 0 && !std::filesystem::is_directory(path, ignored);
}

// The first program called `name` in a folder of $PATH, or "". Empty entries (the current folder) are skipped: the
// grader never runs whatever lies where it was started.
inline std::string program_on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::stringstream folders(path ? path : "");
    for (std::string folder; std::getline(folders, folder, ':');)
        if (!folder.empty() && is_program_file(folder + "/" + name)) return folder + "/" + name;
    return "";
}

}  // namespace gpulab
