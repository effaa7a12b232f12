// A log or config read whole as text, and the end of a long log kept for a message (where a failed
// step's error is). Shared by gpulab-grade and the class grader.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace gpulab::runner {

// The file's contents; empty where it cannot be read (a log a step that crashed never wrote).
std::string read_text(const std::filesystem::path& path);

// The last `bytes` bytes of `text`, all of it when shorter.
std::string tail_of(const std::string& text, std::size_t bytes);

}  // namespace gpulab::runner
