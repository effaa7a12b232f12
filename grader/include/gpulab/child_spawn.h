// Starting a tool as the grader's child (compute-sanitizer for the sanitizer pass, ncu for the GPU profile): one way
// for both, so neither leaks a descriptor or runs outside its own process group.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace gpulab {

// Starts `argv` with `env` in a process group of its own (kill(-pid) ends the tool and what it started), stdout and
// stderr into the file `log`, stdin from /dev/null, and no descriptor of this process but those (the result channel is
// close-on-exec already; nothing else leaks either). Throws std::runtime_error naming `what` when it cannot start.
pid_t spawn_child(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& log,
                  const std::string& what);

// This process's own executable ("" where /proc/self/exe cannot be read), and a whole file's text ("" if unreadable).
std::string own_executable_path();
std::string read_text_file(const std::string& path);

}  // namespace gpulab
