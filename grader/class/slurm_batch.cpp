#include "slurm_batch.h"

#include "text_file.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace gpulab::grade_class {

namespace fs = std::filesystem;

namespace {

// Written whole or not at all (a reader on another node never sees half a file).
void write_json(const fs::path& path, const nlohmann::json& json) {
    const fs::path temporary = path.string() + ".tmp";
    std::ofstream(temporary) << json.dump(1) << "\n";
    fs::rename(temporary, path);
}

nlohmann::json read_json(const fs::path& path) {
    try {
        return nlohmann::json::parse(runner::read_text(path));
    } catch (const std::exception& e) {
        throw std::runtime_error(path.string() + ": " + e.what());
    }
}

}  // namespace

nlohmann::json options_to_json(const BatchOptions& o, const std::string& seed) {
    return {{"submissions", fs::absolute(o.submissions).string()}, {"out", fs::absolute(o.out).string()},
            {"tree", fs::absolute(o.tree).string()}, {"labs", o.labs}, {"mode", o.mode}, {"seed", seed},
            {"unsandboxed", o.unsandboxed}, {"cmake_args", o.cmake_args}, {"grader_version", o.grader_version},
            {"lab_time_limit_s", o.lab_time_limit_s}, {"max_hangs", o.max_hangs},
            {"test_time_limit_s", o.test_time_limit_s}, {"no_timing", o.no_timing}, {"workspaces", o.workspaces}};
}

BatchOptions options_from_json(const nlohmann::json& j, std::string& seed) {
    BatchOptions o;
    o.submissions = j.at("submissions");
    o.out = j.at("out");
    o.tree = j.at("tree");
    o.labs = j.at("labs").get<std::vector<std::string>>();
    o.mode = j.at("mode");
    o.seed = seed = j.at("seed");
    o.unsandboxed = j.at("unsandboxed");
    o.cmake_args = j.at("cmake_args").get<std::vector<std::string>>();
    o.grader_version = j.at("grader_version");
    o.lab_time_limit_s = j.at("lab_time_limit_s");
    o.max_hangs = j.at("max_hangs");
    o.test_time_limit_s = j.value("test_time_limit_s", 0u);  // absent from a batch an older version wrote
    o.no_timing = j.value("no_timing", false);
    o.workspaces = j.at("workspaces");
    return o;
}

SlurmBatch write_batch(const BatchOptions& options, const std::string& seed, const std::vector<ShardItem>& items, int tasks) {
    const fs::path root = fs::absolute(options.out) / "slurm";
    fs::create_directories(root);
    SlurmBatch batch;
    for (int n = 1;; ++n) {
        char name[32];
        std::snprintf(name, sizeof name, "batch-%03d", n);
        batch.dir = root / name;
        if (fs::create_directory(batch.dir)) break;  // false: an earlier batch's folder
    }
    batch.tasks = std::max(1, std::min<int>(tasks, int(items.size())));
    for (const char* sub : {"logs", "tasks", "results"}) fs::create_directories(batch.dir / sub);
    std::vector<nlohmann::json> shards(batch.tasks, nlohmann::json::array());
    for (std::size_t i = 0; i < items.size(); ++i) {
        const ShardItem& item = items[i];
        // The batch's own copy of the student's files: a later run's intake rewrites work/intake while this
        // array's tasks may still be reading.
        std::map<std::string, std::string> files;
        const fs::path copies = batch.dir / "files" / item.work.submission.student / item.work.submission.lab;
        fs::create_directories(copies);
        for (const auto& [name, path] : item.files) {
            fs::copy_file(path, copies / name, fs::copy_options::overwrite_existing);
            files[name] = (copies / name).string();
        }
        shards[i % batch.tasks].push_back({{"student", item.work.submission.student}, {"lab", item.work.submission.lab},
                                           {"content_hash", item.work.submission.content_hash},
                                           {"reason", describe(item.work.reason)}, {"files", files}});
    }
    for (int k = 0; k < batch.tasks; ++k) write_json(batch.shard_path(k), {{"task", k}, {"items", shards[k]}});
    write_json(batch.dir / "batch.json", {{"options", options_to_json(options, seed)}, {"tasks", batch.tasks}, {"job_id", ""}});
    return batch;
}

void record_job_id(SlurmBatch& batch, const std::string& job_id) {
    nlohmann::json json = read_json(batch.dir / "batch.json");
    json["job_id"] = job_id;
    write_json(batch.dir / "batch.json", json);
    batch.job_id = job_id;
}

std::vector<SlurmBatch> read_batches(const std::string& out) {
    std::vector<SlurmBatch> batches;
    const fs::path root = fs::absolute(out) / "slurm";
    if (!fs::is_directory(root)) return batches;
    for (const fs::directory_entry& entry : fs::directory_iterator(root)) {
        if (!fs::exists(entry.path() / "batch.json")) continue;
        const nlohmann::json json = read_json(entry.path() / "batch.json");
        batches.push_back({entry.path(), json.value("job_id", ""), json.value("tasks", 0)});
    }
    std::sort(batches.begin(), batches.end(), [](const SlurmBatch& a, const SlurmBatch& b) { return a.dir < b.dir; });
    return batches;
}

std::vector<ShardItem> read_shard(const SlurmBatch& batch, int task) {
    std::vector<ShardItem> items;
    const nlohmann::json shard = read_json(batch.shard_path(task));
    for (const nlohmann::json& j : shard.at("items")) {
        ShardItem item;
        item.work.submission = {j.at("student"), j.at("lab"), j.at("content_hash")};
        item.work.reason = WorkReason::not_graded;  // why it was listed is for the submitting side's log only
        item.files = j.at("files").get<std::map<std::string, std::string>>();
        items.push_back(std::move(item));
    }
    return items;
}

}  // namespace gpulab::grade_class
