// Starting a grader or build process and watching it: its output goes to a log file, and it is
// killed if it stops making progress.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gpulab::runner {

struct ExitStatus {
    bool exited = false;  // normal exit: `code` is set
    int code = 0;
    int signal = 0;       // killed by this signal (0 if it exited)
    bool killed_by_watchdog = false;
    std::string describe() const;
};

struct ChildSpec {
    std::vector<std::string> argv;
    std::map<std::string, std::string> env;  // added to this process's environment
    std::string log_path;                    // stdout and stderr, appended
    // Descriptors the child inherits: {descriptor here, the number it gets in the child}. Every other
    // descriptor of this process is closed in the child (they are opened close-on-exec).
    std::vector<std::pair<int, int>> inherit;
    // The cores the child (and all it starts) may run on; empty: this process's own. Where they cannot be had
    // (a core gone since), the child runs on this process's and its log says so.
    std::vector<int> cpus;
};

// Runs the child to completion. `still_alive` is called about ten times a second while the child
// runs; when it returns false the child is killed (SIGKILL) and killed_by_watchdog is set.
ExitStatus run_child(const ChildSpec& spec, const std::function<bool()>& still_alive);

}  // namespace gpulab::runner
