#include "workspace.h"

#include "child_process.h"
#include "text_file.h"

#include <chrono>
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
      scratch_((fs::path(spec_.dir) / "scratch").string()),
      build_((fs::path(scratch_) / "build").string()) {}

std::string Workspace::run_dir(const std::string& student, const std::string& lab) const {
    return (fs::path(scratch_) / "runs" / student / lab).string();
}

void Workspace::prepare() {
    const fs::path marker = fs::path(spec_.dir) / "prepared";
    if (fs::exists(marker) && fs::exists(fs::path(build_) / "CMakeCache.txt")) return;
    fs::remove_all(tree_);
    copy_tree(spec_.instructor_tree, tree_);
    std::string only;
    for (const std::string& lab : spec_.labs) only += (only.empty() ? "" : ";") + lab;
    std::vector<std::string> argv{"cmake", "-S", tree_, "-B", build_, "-DCMAKE_BUILD_TYPE=Release", "-DGPULAB_ONLY_LABS=" + only,
                                  "-DGPULAB_PLANTED_VARIANTS=OFF"};
    argv.insert(argv.end(), spec_.cmake_args.begin(), spec_.cmake_args.end());
    fs::create_directories(spec_.dir);
    run_or_throw(argv, fs::path(spec_.dir) / "configure.log", "configuring the workspace " + spec_.dir);
    // The graders and the reference once, before any student's code: what every submission shares.
    run_or_throw({"cmake", "--build", build_, "--target", "gpulab_graders", "-j", "2"}, fs::path(spec_.dir) / "graders.log",
                 "building the graders in " + spec_.dir);
    std::ofstream(marker) << "ok\n";
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

std::vector<std::string> grade_command(const Workspace& ws, const std::string& lab, const std::string& mode,
                                       const std::string& seed, const std::string& out_dir, unsigned max_hangs) {
    std::vector<std::string> argv{(fs::path(ws.build()) / "gpulab-grade").string(), "--build-dir", ws.build(), "--lab", lab,
                                  "--solution", "starter", "--mode", mode, "--out", out_dir,
                                  "--max-hangs", std::to_string(max_hangs)};
    if (!seed.empty()) argv.insert(argv.end(), {"--seed", seed});
    return argv;
}

}  // namespace gpulab::grade_class
