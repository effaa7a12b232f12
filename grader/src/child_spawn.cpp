// Starting a tool as the grader's child (child_spawn.h), for the sanitizer pass and the GPU profile.
#include "gpulab/child_spawn.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gpulab {

std::string own_executable_path() {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::string() : self.string();
}

std::string read_text_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Starts `argv` with `env` in a process group of its own, stdout and stderr into `log`, and no descriptor of
// this process but those (the result channel is close-on-exec already; nothing else leaks either).
pid_t spawn_child(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& log,
                  const std::string& what) {
    std::vector<char*> args, envp;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) throw std::runtime_error("cannot write " + log + ": " + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid == 0) {
        // Only async-signal-safe calls between fork and exec: this process may have other threads.
        ::setpgid(0, 0);
        ::dup2(out, 1);
        ::dup2(out, 2);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) ::dup2(devnull, 0);
        if (::syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
            for (int fd = 3; fd < 4096; ++fd) ::close(fd);
        ::execve(args[0], args.data(), envp.data());
        ::_exit(127);
    }
    ::close(out);
    if (pid < 0) throw std::runtime_error("cannot start " + what + ": " + std::strerror(errno));
    ::setpgid(pid, pid);  // either side may win the race; both ask for the same group
    return pid;
}

}  // namespace gpulab
