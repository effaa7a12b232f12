// Starting a tool as the grader's child (compute-sanitizer for the sanitizer pass, cuobjdump and c++filt for the kernels'
// resources, Python for a picture): one way for all, so none leaks a descriptor or runs outside its own process group.
#pragma once

#include <sys/types.h>

#include <cstddef>

#include <string>
#include <vector>

namespace gpulab {

// Starts `argv` with `env` in a process group of its own (kill(-pid) ends the tool and what it started), stdout and
// stderr into the file `log`, stdin from /dev/null, and no descriptor of this process but those (the result channel is
// close-on-exec already; nothing else leaks either). Throws std::runtime_error naming `what` when it cannot start.
pid_t spawn_child(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& log,
                  const std::string& what);

// Starts `argv` as spawn_child does, but talked to: its stdin and stdout are one end of a socket pair, whose other end
// (close-on-exec) is returned in `*talk`; its stderr goes to /dev/null. A socket rather than two pipes so that writing to
// a child that has died fails with EPIPE under MSG_NOSIGNAL instead of killing this process with SIGPIPE.
pid_t spawn_talking_child(const std::vector<std::string>& argv, int* talk, const std::string& what);

// A tool run to its end (or its time limit) by run_tool.
struct ToolRun {
    bool started = false;
    std::string cannot_start;  // when not started
    bool timed_out = false;
    int exit_code = -1;        // when it exited
    int signal = 0;            // when a signal ended it
    std::string output;        // stdout and stderr, up to the limit asked for
    bool succeeded() const { return started && !timed_out && exit_code == 0; }
};

// Runs `argv` (argv[0] a path) with this process's environment through spawn_child, waits for it, and kills its
// process group after `limit_s` seconds (0: no limit). Its output goes through a temporary file.
ToolRun run_tool(const std::vector<std::string>& argv, int limit_s = 0, std::size_t max_output = std::size_t(1) << 20);

// This process's own executable ("" where /proc/self/exe cannot be read), and a whole file's text ("" if unreadable).
std::string own_executable_path();
std::string read_text_file(const std::string& path);

}  // namespace gpulab
