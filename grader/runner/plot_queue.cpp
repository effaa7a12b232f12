#include "plot_queue.h"

#include "gpulab/plot.h"

#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

namespace gpulab::runner {
namespace {

namespace fs = std::filesystem;

const char* const kStopFile = "no-more-requests";

// Whether `path` lies under `root` once both are made absolute and free of "..": a request from a grader
// process (which runs the student's code) may name only the lab's own folder.
bool inside(const fs::path& path, const fs::path& root) {
    std::error_code ignored;
    const fs::path p = fs::weakly_canonical(fs::absolute(path), ignored), r = fs::weakly_canonical(fs::absolute(root), ignored);
    const auto [end, at] = std::mismatch(r.begin(), r.end(), p.begin(), p.end());
    return end == r.end();
}

// The requests waiting, oldest first (by name: <pid>-<count>, so one process's requests keep their order).
std::vector<fs::path> waiting_requests(const fs::path& folder) {
    std::vector<fs::path> found;
    std::error_code ignored;
    for (const auto& entry : fs::directory_iterator(folder, ignored))
        if (entry.path().extension() == ".json") found.push_back(entry.path());
    std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) {
        return std::make_pair(fs::last_write_time(a), a) < std::make_pair(fs::last_write_time(b), b);
    });
    return found;
}

QueuedPicture draw_request(const fs::path& request, const fs::path& root) {
    QueuedPicture picture;
    try {
        const nlohmann::json r = nlohmann::json::parse(std::ifstream(request));
        const std::string kind = r.at("kind"), data = r.at("data");
        const auto args = r.at("args").get<std::vector<std::string>>();
        picture.picture = data;
        bool allowed = inside(data, root);
        for (std::size_t i = 0; i + 1 < args.size(); ++i)
            if (args[i] == "--out") picture.picture = args[i + 1], allowed = allowed && inside(args[i + 1], root);
        if (!allowed) {
            picture.skipped_because = "refused: a picture is drawn from and into the lab's own folder only";
            return picture;
        }
        const PlotOutcome outcome = draw_plot(kind, data, args, r.value("limit_s", 120));
        picture.drawn = outcome.drawn;
        picture.skipped_because = outcome.skipped_because;
    } catch (const std::exception& e) {
        picture.skipped_because = std::string("a request gpulab-grade cannot read: ") + e.what();
    }
    return picture;
}

// The worker: draws each request as it comes, writes its outcome beside it (<request>.done), and ends once
// gpulab-grade has said that no more will come and none is left.
[[noreturn]] void work(const fs::path& folder, const fs::path& root) {
    ::unsetenv("GPULAB_PLOT_QUEUE");  // draw_plot draws here, it does not queue again
    int count = 0;
    for (;;) {
        const bool last_round = fs::exists(folder / kStopFile);
        for (const fs::path& request : waiting_requests(folder)) {
            const QueuedPicture p = draw_request(request, root);
            char order[16];
            std::snprintf(order, sizeof order, "%06d", ++count);
            std::ofstream(folder / (std::string(order) + ".done"))
                << nlohmann::json{{"picture", p.picture}, {"drawn", p.drawn}, {"skipped_because", p.skipped_because}}.dump()
                << "\n";
            std::error_code ignored;
            fs::remove(request, ignored);
        }
        if (last_round) ::_exit(0);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

}  // namespace

PlotQueue::PlotQueue(const std::string& work_dir) : work_dir_(work_dir) {
    const fs::path folder = fs::path(work_dir) / "plot-queue";
    std::error_code failed;
    fs::remove_all(folder, failed);
    fs::create_directories(folder, failed);
    if (failed) return;  // no queue: each grader draws its own pictures
    // Nothing buffered may be written twice (by the worker too).
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) return;
    if (pid == 0) {
        // A worker whose gpulab-grade died goes with it.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(0);
        try {
            work(folder, work_dir);
        } catch (...) {
            ::_exit(1);
        }
    }
    worker_ = pid;
    folder_ = folder.string();
}

PlotQueue::~PlotQueue() { finish(); }

std::vector<QueuedPicture> PlotQueue::finish() {
    std::vector<QueuedPicture> pictures;
    if (worker_ < 0) return pictures;
    const fs::path folder = folder_;
    std::ofstream(folder / kStopFile) << "\n";
    int status = 0;
    while (::waitpid(worker_, &status, 0) < 0 && errno == EINTR) {
    }
    worker_ = -1;
    std::vector<fs::path> done;
    std::error_code ignored;
    for (const auto& entry : fs::directory_iterator(folder, ignored))
        if (entry.path().extension() == ".done") done.push_back(entry.path());
    std::sort(done.begin(), done.end());
    for (const fs::path& file : done) {
        try {
            const nlohmann::json j = nlohmann::json::parse(std::ifstream(file));
            pictures.push_back({j.at("picture"), j.at("drawn"), j.at("skipped_because")});
        } catch (const std::exception& e) {
            pictures.push_back({file.string(), false, std::string("its outcome cannot be read: ") + e.what()});
        }
    }
    // Requests the worker never reached (it died): said, not lost.
    for (const fs::path& request : waiting_requests(folder))
        pictures.push_back({request.string(), false, "not drawn: the worker that draws pictures ended first"});
    fs::remove_all(folder, ignored);
    return pictures;
}

}  // namespace gpulab::runner
