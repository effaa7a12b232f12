#include "workspace.h"

#include "child_process.h"
#include "text_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gpulab::grade_class {

namespace fs = std::filesystem;

namespace {

// What a worker's copy leaves out: build folders, version control, earlier workspaces and device runs.
bool left_out_of_copy(const fs::path& relative) {
    const std::string first = relative.begin()->string();
    return first.rfind("build", 0) == 0 || first == ".git" || first == ".device" || first == ".class-work";
}

void copy_tree(const fs::path& from, const fs::path& to) {
    fs::create_directories(to);
    for (auto it = fs::recursive_directory_iterator(from); it != fs::recursive_directory_iterator(); ++it) {
        const fs::path relative = fs::relative(it->path(), from);
        if (left_out_of_copy(relative)) {
            if (it->is_directory()) it.disable_recursion_pending();
            continue;
        }
        if (it->is_directory()) fs::create_directories(to / relative);
        else if (it->is_regular_file())
            fs::copy_file(it->path(), to / relative, fs::copy_options::overwrite_existing);
    }
}


void run_or_throw(const std::vector<std::string>& argv, const fs::path& log, const std::string& what) {
    const auto started = std::chrono::steady_clock::now();
    const runner::ExitStatus status = runner::run_child({argv, {}, log.string(), {}}, [&] {
        return std::chrono::steady_clock::now() - started < std::chrono::minutes(60);
    });
    if (!status.exited || status.code != 0)
        throw std::runtime_error(what + " failed (" + status.describe() + "); the end of " + log.string() + ":\n" + runner::tail_of(runner::read_text(log), 3000));
}

}  // namespace

Workspace::Workspace(WorkspaceSpec spec)
    : spec_(std::move(spec)),
      tree_((fs::path(spec_.dir) / "tree").string()),
      build_((fs::path(tree_) / "build").string()) {}

std::string Workspace::run_dir(const std::string& student, const std::string& lab) const {
    return (fs::path(build_) / "class-runs" / student / lab).string();
}

// What the workspace was prepared for: another version, other labs or other CMake options start it again.
std::string Workspace::made_for() const {
    std::string text = spec_.version + "\n";
    for (const std::string& lab : spec_.labs) text += lab + " ";
    for (const std::string& arg : spec_.cmake_args) text += "\n" + arg;
    return text + "\n";
}

bool Workspace::prepared() const {
    const fs::path marker = fs::path(spec_.dir) / "prepared";
    return fs::exists(marker) && fs::exists(fs::path(build_) / "CMakeCache.txt") && runner::read_text(marker) == made_for();
}

void Workspace::prepare() {
    if (prepared()) return;
    const fs::path marker = fs::path(spec_.dir) / "prepared";
    // Another version's files go (a file the new version lacks must not linger); its build folder stays, so
    // only what changed is compiled again.
    if (fs::is_directory(tree_))
        for (const auto& entry : fs::directory_iterator(tree_))
            if (entry.path() != fs::path(build_)) fs::remove_all(entry.path());
    copy_tree(spec_.instructor_tree, tree_);
    fs::remove_all(fs::path(spec_.dir) / "scratch");  // where earlier versions kept the build folder
    std::string only;
    for (const std::string& lab : spec_.labs) only += (only.empty() ? "" : ";") + lab;
    std::vector<std::string> argv{"cmake", "-S", tree_, "-B", build_, "-DCMAKE_BUILD_TYPE=Release", "-DGPULAB_ONLY_LABS=" + only,
                                  "-DGPULAB_PLANTED_VARIANTS=OFF"};
    argv.insert(argv.end(), spec_.cmake_args.begin(), spec_.cmake_args.end());
    fs::create_directories(spec_.dir);
    run_or_throw(argv, fs::path(spec_.dir) / "configure.log", "configuring the workspace " + spec_.dir);
    // The graders and the reference once, before any student's code: what every submission shares.
    run_or_throw({"cmake", "--build", build_, "--target", "gpulab_graders", "-j", std::to_string(std::max(1, spec_.build_jobs))},
                 fs::path(spec_.dir) / "graders.log", "building the graders in " + spec_.dir);
    std::ofstream(marker) << made_for();
}

void Workspace::place(const std::string& lab, const std::vector<std::pair<std::string, std::string>>& files) {
    const fs::path starter = fs::path(tree_) / "starter" / lab;
    fs::remove_all(starter);
    copy_tree(fs::path(spec_.instructor_tree) / "starter" / lab, starter);
    for (const auto& [name, path] : files) fs::copy_file(path, starter / name, fs::copy_options::overwrite_existing);
    // A library left by the previous submission must never be graded as this one's. (Its folders stay: the
    // build generated them once and the linker does not create them again.)
    const fs::path libraries = fs::path(build_) / "solutions" / lab / "starter";
    std::vector<fs::path> stale;
    if (fs::exists(libraries))
        for (const auto& entry : fs::recursive_directory_iterator(libraries))
            if (!entry.is_directory()) stale.push_back(entry.path());
    for (const fs::path& file : stale) fs::remove(file);
}

bool reachable_by_others(const fs::path& path) {
    fs::path at;
    for (const fs::path& part : fs::absolute(path)) {
        at /= part;
        struct stat st {};
        if (::stat(at.c_str(), &st) != 0) break;  // not made yet: created below a folder that was checked
        if (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH)) return false;
    }
    return true;
}

std::string default_work_root(const std::string& out, bool unsandboxed) {
    const fs::path usual = fs::absolute(out) / "work";
    if (::geteuid() != 0 || unsandboxed || reachable_by_others(usual)) return usual.string();
    const fs::path note = fs::absolute(out) / "work-location";
    std::string kept;
    if (std::ifstream in(note); in && std::getline(in, kept) && fs::is_directory(kept)) return kept;
    const char* base = std::getenv("GPULAB_CLASS_WORK_ROOT");
    std::string pattern = (fs::path(base && *base ? base : "/var/tmp") / "gpulab-class-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
        throw std::runtime_error("cannot create a folder for the workspaces under " + fs::path(pattern).parent_path().string() +
                                 ": " + std::strerror(errno) + " (set GPULAB_CLASS_WORK_ROOT to a folder others may enter)");
    ::chmod(pattern.c_str(), 0711);  // the sandbox's user may pass through, not list
    std::ofstream(note) << pattern << "\n";
    std::cout << "[gpulab-grade-class] " << usual.string() << " lies under a folder the sandbox's user ("
              << "nobody) cannot enter, so the workspaces go to " << pattern << " (kept in " << note.string() << ")\n";
    return pattern;
}

WorkspaceSlot::WorkspaceSlot(const std::string& root) {
    fs::create_directories(root);
    for (int n = 0;; ++n) {
        const fs::path lock = fs::path(root) / ("worker-" + std::to_string(n) + ".lock");
        // Close-on-exec: a build or grader started while the slot is held must not keep it locked after we die.
        const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) throw std::runtime_error("cannot open " + lock.string() + ": " + std::strerror(errno));
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
            fd_ = fd;
            index_ = n;
            dir_ = (fs::path(root) / ("worker-" + std::to_string(n))).string();
            return;
        }
        const int why = errno;
        ::close(fd);
        if (why != EWOULDBLOCK)
            throw std::runtime_error("cannot lock " + lock.string() + ": " + std::strerror(why) +
                                     " (a filesystem without file locks: give --workspaces a local folder)");
    }
}

WorkspaceSlot::~WorkspaceSlot() {
    if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the flock
}

std::vector<std::string> grade_command(const Workspace& ws, const std::string& lab, const std::string& mode,
                                       const std::string& seed, const std::string& out_dir, unsigned max_hangs) {
    std::vector<std::string> argv{(fs::path(ws.build()) / "gpulab-grade").string(), "--build-dir", ws.build(), "--lab", lab,
                                  "--solution", "starter", "--mode", mode, "--out", out_dir,
                                  "--max-hangs", std::to_string(max_hangs)};
    if (!seed.empty()) argv.insert(argv.end(), {"--seed", seed});
    return argv;
}

}  // namespace gpulab::grade_class
