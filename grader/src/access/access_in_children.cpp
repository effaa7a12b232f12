// Each timed launch's access analysis in a forked child, side by side (access_in_children.h).
#include "gpulab/access_in_children.h"

#include "gpulab/parallel_for.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gpulab {

// Every field, or a child's row would arrive without it: a field added to these structs is added here too.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Occupancy, theoretical, blocks_per_sm, limiter)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CauseLine, quoted, figure)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Diagnosis, cause, text, lines)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AccessFigures, suite, instance, call, available, why, input_bytes_per_output_byte,
                                   pages_sampled, load_sector_use, store_sector_use, load_sectors_per_request,
                                   store_sectors_per_request, load_sectors_per_lane, store_sectors_per_lane,
                                   shared_bytes_read_per_output_byte, shared_load_conflicts_per_request,
                                   shared_store_conflicts_per_request, shared_capped, idle_lanes_known,
                                   idle_lane_request_share, active_lanes_per_request, idle_lanes_from, threads_per_block,
                                   shared_bytes, kernel, registers, local_bytes, gpu_static_shared, resources_from,
                                   resources_why, occupancy, diagnoses, cause_lines_why, blocks, grid_blocks,
                                   sector_blocks, lines_seconds, counted_in_part, blocks_cut, block_accesses)

std::vector<std::uint8_t> encode_access_figures(const AccessFigures& f) { return nlohmann::json::to_cbor(nlohmann::json(f)); }

AccessFigures decode_access_figures(const std::vector<std::uint8_t>& bytes) {
    return nlohmann::json::from_cbor(bytes).get<AccessFigures>();
}

namespace {

struct Child {
    pid_t pid = -1;
    int from = -1;  // the read end of its pipe
    std::size_t index = 0;
    std::vector<std::uint8_t> bytes;
};

bool write_all(int fd, const std::vector<std::uint8_t>& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += std::size_t(n);
    }
    return true;
}

// The child: its figures down the pipe, then out without running this process's exit handlers (GoogleTest's among
// them: the test is the parent's to end).
[[noreturn]] void run_child(int to, pid_t parent, std::size_t i, const std::function<AccessFigures(std::size_t)>& analyze) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a parent stopped at its time limit takes its counts with it
    if (::getppid() != parent) ::_exit(4);
    try {
        ::_exit(write_all(to, encode_access_figures(analyze(i))) ? 0 : 3);
    } catch (...) {
        ::_exit(3);
    }
}

// Why a launch has no figures, as its row in the student's table says it.
std::string how_it_ended(int status) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        std::string why = "the process counting this launch ended with signal " + std::to_string(sig) + " (" +
                          strsignal(sig) + ")";
        if (sig == SIGSEGV || sig == SIGBUS)
            why += ": the kernel touched memory it does not own; the correctness tests say where";
        if (sig == SIGKILL) why += ": stopped from outside, most likely because the machine ran out of memory";
        return why;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        return "the process counting this launch stopped with exit status " + std::to_string(WEXITSTATUS(status)) +
               " before it could hand back its figures";
    return "the process counting this launch handed back no figures";
}

}  // namespace

std::vector<AccessFigures> analyze_in_children(std::size_t n, const std::function<AccessFigures(std::size_t)>& analyze,
                                               const std::function<AccessFigures(std::size_t, const std::string&)>& failed,
                                               unsigned workers) {
    std::vector<AccessFigures> rows(n);
    if (workers == 0) workers = host_threads();
    const pid_t self = ::getpid();
    std::vector<Child> running;
    std::size_t next = 0;
    while (next < n || !running.empty()) {
        while (running.size() < std::max(1u, workers) && next < n) {
            const std::size_t i = next++;
            int ends[2];
            std::fflush(nullptr);  // nothing buffered here is written twice
            if (::pipe2(ends, O_CLOEXEC) != 0) {
                rows[i] = analyze(i);
                continue;
            }
            const pid_t pid = ::fork();
            if (pid == 0) {
                ::close(ends[0]);
                run_child(ends[1], self, i, analyze);
            }
            ::close(ends[1]);
            if (pid < 0) {
                ::close(ends[0]);
                rows[i] = analyze(i);
                continue;
            }
            running.push_back(Child{pid, ends[0], i, {}});
        }
        if (running.empty()) continue;
        std::vector<pollfd> fds;
        for (const Child& c : running) fds.push_back(pollfd{c.from, POLLIN, 0});
        if (::poll(fds.data(), fds.size(), -1) < 0) continue;  // EINTR: ask again
        for (std::size_t k = running.size(); k-- > 0;) {
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            Child& c = running[k];
            std::uint8_t buffer[1 << 16];
            const ssize_t got = ::read(c.from, buffer, sizeof buffer);
            if (got < 0 && errno == EINTR) continue;
            if (got > 0) {
                c.bytes.insert(c.bytes.end(), buffer, buffer + got);
                continue;
            }
            ::close(c.from);  // the child closed its end: it is done
            int status = 0;
            while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
            }
            const bool whole = WIFEXITED(status) && WEXITSTATUS(status) == 0 && !c.bytes.empty();
            try {
                rows[c.index] = whole ? decode_access_figures(c.bytes) : failed(c.index, how_it_ended(status));
            } catch (const std::exception& e) {
                rows[c.index] = failed(c.index, std::string("its child's figures could not be read back: ") + e.what());
            }
            running.erase(running.begin() + std::ptrdiff_t(k));
        }
    }
    return rows;
}

}  // namespace gpulab
