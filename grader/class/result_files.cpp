#include "result_files.h"

#include "text_file.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <stdexcept>

namespace gpulab::grade_class {

namespace fs = std::filesystem;

// Every column of the database's row, by the same names.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LabResult, student, lab, content_hash, status, points, max_points, result, gpu_name,
                                   driver_version, grader_version, seed, worker, build_seconds, run_seconds, finished_at)

nlohmann::json result_to_json(const LabResult& result) { return result; }

LabResult result_from_json(const nlohmann::json& json) {
    try {
        return json.get<LabResult>();
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(std::string("not a whole result: ") + e.what());
    }
}

std::string utc_now_iso8601_ms() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const long ms = long(std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
    std::tm utc{};
    ::gmtime_r(&seconds, &utc);
    char text[40];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                  utc.tm_hour, utc.tm_min, utc.tm_sec, ms);
    return text;
}

fs::path result_file_path(const fs::path& dir, const std::string& student, const std::string& lab) {
    return dir / (student + "." + lab + ".json");
}

fs::path write_result_file(const fs::path& dir, LabResult result) {
    if (result.finished_at.empty()) result.finished_at = utc_now_iso8601_ms();
    fs::create_directories(dir);
    const fs::path path = result_file_path(dir, result.student, result.lab);
    // A hidden temporary name the importer never reads, unique per process, in the same folder (rename is
    // atomic only within one filesystem).
    const fs::path temporary = dir / ("." + path.filename().string() + "." + std::to_string(::getpid()) + ".tmp");
    {
        std::ofstream out(temporary, std::ios::trunc);
        out << result_to_json(result).dump(1) << "\n";
        out.flush();
        if (!out) throw std::runtime_error("cannot write " + temporary.string());
    }
    fs::rename(temporary, path);
    return path;
}

LabResult read_result_file(const fs::path& path) {
    try {
        return result_from_json(nlohmann::json::parse(runner::read_text(path)));
    } catch (const std::exception& e) {
        throw std::runtime_error(path.string() + ": " + e.what());
    }
}

ImportCount import_result_files(const std::vector<fs::path>& dirs, ResultsDb& db, const std::vector<FoundSubmission>& found,
                                const std::string& grader_version) {
    std::map<std::pair<std::string, std::string>, std::string> hash_now;
    for (const FoundSubmission& f : found) hash_now[{f.student, f.lab}] = f.content_hash;
    ImportCount count;
    for (const fs::path& dir : dirs) {
        if (!fs::is_directory(dir)) continue;
        for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
            const std::string name = entry.path().filename().string();
            if (!entry.is_regular_file() || name.front() == '.' || entry.path().extension() != ".json") continue;
            LabResult r;
            try {
                r = read_result_file(entry.path());
            } catch (const std::exception& e) {
                count.problems.push_back(e.what());
                continue;
            }
            const auto now = hash_now.find({r.student, r.lab});
            if (now == hash_now.end() || now->second != r.content_hash || r.grader_version != grader_version) {
                ++count.stale;
                continue;
            }
            // The key is (student, lab, content hash, grader version); finished_at tells a newer grading of the
            // same files (a regrade) from this one.
            const std::optional<LabResult> stored = db.result(r.student, r.lab);
            if (stored && stored->content_hash == r.content_hash && stored->grader_version == r.grader_version &&
                stored->finished_at >= r.finished_at) {
                ++count.already;
                continue;
            }
            db.store(r);
            count.imported.push_back(std::move(r));
        }
    }
    return count;
}

}  // namespace gpulab::grade_class
