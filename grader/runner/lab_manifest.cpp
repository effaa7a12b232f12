#include "lab_manifest.h"

#include "gpulab/lab_config.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace gpulab::runner {

std::vector<LabManifest> load_manifests(const std::string& build_dir) {
    const std::filesystem::path folder = std::filesystem::path(build_dir) / "gpulab-labs";
    if (!std::filesystem::is_directory(folder))
        throw std::runtime_error("no lab manifests in " + folder.string() + ": configure the build first (make grade does)");
    std::vector<LabManifest> labs;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        if (entry.path().extension() != ".json") continue;
        const Json j = load_json_file(entry.path().string());
        LabManifest lab{j.at("lab"), j.at("config"), j.at("graders").get<std::map<std::string, std::string>>(), {}};
        for (const auto& [name, s] : j.at("solutions").items()) {
            Solution solution{name, {}, s.value("sources_dir", ""), s.value("expect", ""), 0};
            solution.prebuilt = s.value("prebuilt", false);
            solution.recorded_gpu_counters = j.value("gpu_counters", "");
            if (!solution.expect.empty()) {
                const Json expect = load_json_file(solution.expect);
                solution.test_timeout_s = expect.value("test_timeout_s", 0u);
                // Only the tests the bug breaks run into it: a test it leaves alone keeps its own limit, so a
                // moment's load on a shared GPU (the killed endless kernels' teardown) cannot time it out.
                for (const char* list : {"must_fail", "may_fail"})
                    for (const std::string& id : expect.value(list, std::vector<std::string>{}))
                        solution.test_timeout_ids.insert(id);
            }
            for (const char* mode : {"gpu", "cpu"})
                if (s.contains(mode)) {
                    Build build{s.at(mode).at("target"), s.at(mode).at("library"), {}};
                    std::string objects = s.at(mode).value("objects", "");
                    for (std::size_t from = 0, to; from < objects.size(); from = to + 1) {
                        to = objects.find(';', from);
                        if (to == std::string::npos) to = objects.size();
                        if (to > from) build.objects.push_back(objects.substr(from, to - from));
                    }
                    solution.builds[mode] = build;
                }
            lab.solutions[name] = solution;
        }
        lab.grader_targets = j.value("grader_targets", std::map<std::string, std::string>{});
        const Json expert = j.value("expert", Json::object());
        for (const auto& [mode, b] : expert.items())
            lab.expert[mode] = Build{b.at("target"), b.at("library"), {}};
        labs.push_back(std::move(lab));
    }
    std::sort(labs.begin(), labs.end(), [](const auto& a, const auto& b) { return a.lab < b.lab; });
    return labs;
}

}  // namespace gpulab::runner
