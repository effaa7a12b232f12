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
const char* const kTaken = ".drawing";  // a request a worker has taken

// Pictures drawn at once: a lab's last two (its roofline and its GPU profile, asked for as its last tests end)
// are drawn side by side instead of one after the other.
constexpr int kWorkers = 2;

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

QueuedPicture draw_request(const fs::path& request, const fs::path& root, PlotServer& server) {
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
        const PlotOutcome outcome = server.draw(kind, data, args, r.value("limit_s", 120));
        picture.drawn = outcome.drawn;
        picture.skipped_because = outcome.skipped_because;
    } catch (const std::exception& e) {
        picture.skipped_because = std::string("a request gpulab-grade cannot read: ") + e.what();
    }
    return picture;
}

// When a request was asked for (gpulab/plot.h's draw_plot writes the time in nanoseconds and its process's count),
// for finish() to list the pictures in that order; (0, 0) where the request does not say.
std::pair<long long, long long> asked_when(const fs::path& request) {
    try {
        const nlohmann::json r = nlohmann::json::parse(std::ifstream(request));
        return {r.value("asked_ns", 0LL), r.value("count", 0LL)};
    } catch (const std::exception&) {
        return {0, 0};
    }
}

// A worker: takes each request no other worker has taken (a rename, which only one can win), draws it with its own
// warm Python, writes its outcome beside it (<request>.done, with when it was asked for), and ends once gpulab-grade
// has said that no more will come and none is left.
void work(const fs::path& folder, const fs::path& root) {
    ::unsetenv("GPULAB_PLOT_QUEUE");  // drawn here, not queued again
    PlotServer server;                // its Python imports matplotlib while the lab's first tests run
    for (;;) {
        const bool last_round = fs::exists(folder / kStopFile);
        for (const fs::path& request : waiting_requests(folder)) {
            std::error_code ignored;
            fs::path taken = request;
            taken.replace_extension(kTaken);
            if (std::rename(request.c_str(), taken.c_str()) != 0) continue;  // another worker's
            const std::pair<long long, long long> asked = asked_when(taken);
            const QueuedPicture p = draw_request(taken, root, server);
            fs::path done = request;
            done.replace_extension(".done");
            std::ofstream(done.string() + ".part")
                << nlohmann::json{{"picture", p.picture}, {"drawn", p.drawn}, {"skipped_because", p.skipped_because},
                                  {"asked", {asked.first, asked.second}}}.dump()
                << "\n";
            fs::rename(done.string() + ".part", done, ignored);
            fs::remove(taken, ignored);
        }
        if (last_round) return;
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
    for (int w = 0; w < kWorkers; ++w) {
        const pid_t pid = ::fork();
        if (pid < 0) break;
        if (pid == 0) {
            // A worker whose gpulab-grade died goes with it.
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (::getppid() != parent) ::_exit(0);
            try {
                work(folder, work_dir);
            } catch (...) {
                ::_exit(1);
            }
            ::_exit(0);
        }
        workers_.push_back(pid);
    }
    if (!workers_.empty()) folder_ = folder.string();
}

PlotQueue::~PlotQueue() { finish(); }

std::vector<QueuedPicture> PlotQueue::finish() {
    std::vector<QueuedPicture> pictures;
    if (workers_.empty()) return pictures;
    const fs::path folder = folder_;
    std::ofstream(folder / kStopFile) << "\n";
    for (const pid_t worker : workers_) {
        int status = 0;
        while (::waitpid(worker, &status, 0) < 0 && errno == EINTR) {
        }
    }
    workers_.clear();
    std::vector<std::pair<std::pair<long long, long long>, QueuedPicture>> done;
    std::vector<fs::path> unfinished;
    std::error_code ignored;
    for (const auto& entry : fs::directory_iterator(folder, ignored)) {
        if (entry.path().extension() == kTaken) unfinished.push_back(entry.path());
        if (entry.path().extension() != ".done") continue;
        try {
            const nlohmann::json j = nlohmann::json::parse(std::ifstream(entry.path()));
            done.push_back({j.at("asked").get<std::pair<long long, long long>>(),
                            {j.at("picture"), j.at("drawn"), j.at("skipped_because")}});
        } catch (const std::exception& e) {
            done.push_back({{0, 0}, {entry.path().string(), false, std::string("its outcome cannot be read: ") + e.what()}});
        }
    }
    std::stable_sort(done.begin(), done.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [asked, picture] : done) pictures.push_back(std::move(picture));
    // Requests no worker finished or reached (a worker died): said, not lost.
    for (const fs::path& request : waiting_requests(folder)) unfinished.push_back(request);
    for (const fs::path& request : unfinished)
        pictures.push_back({request.string(), false, "not drawn: the worker that draws pictures ended first"});
    fs::remove_all(folder, ignored);
    return pictures;
}

}  // namespace gpulab::runner
