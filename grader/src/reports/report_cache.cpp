#include "gpulab/report_cache.h"

#include "gpulab/parallel_for.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpulab {

namespace {

namespace fs = std::filesystem;

std::optional<fs::path> entry_path(const std::string& name) {
    const char* dir = std::getenv("GPULAB_CACHE_DIR");
    if (!dir || !*dir) return std::nullopt;
    return fs::path(dir) / (name + ".json");
}

}  // namespace

std::optional<Json> cached_report(const std::string& name, const Json& key) {
    const std::optional<fs::path> path = entry_path(name);
    if (!path) return std::nullopt;
    std::ifstream in(*path);
    if (!in) return std::nullopt;
    const Json entry = Json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!entry.is_object() || !entry.contains("key") || entry.at("key") != key || !entry.contains("value"))
        return std::nullopt;
    return entry.at("value");
}

void store_report(const std::string& name, const Json& key, const Json& value) {
    const std::optional<fs::path> path = entry_path(name);
    if (!path) return;
    std::error_code ignored;
    fs::create_directories(path->parent_path(), ignored);
    const fs::path partial = path->string() + ".part-" + std::to_string(::getpid());
    {
        std::ofstream out(partial);
        if (!out) return;
        out << Json{{"key", key}, {"value", value}}.dump(1) << "\n";
        if (!out) {
            fs::remove(partial, ignored);
            return;
        }
    }
    fs::rename(partial, *path, ignored);
    if (ignored) fs::remove(partial, ignored);
}

Json host_cpu_key() {
    std::string model = "unknown";
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);)
        if (line.rfind("model name", 0) == 0) {
            model = line.substr(line.find(':') + 1);
            model.erase(0, model.find_first_not_of(' '));
            break;
        }
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return Json{{"cpu", model}, {"threads", host_threads()}, {"host", host}};
}

}  // namespace gpulab
