#include "gpulab/lab_config.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>


namespace gpulab {

Json load_json_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    try {
        return Json::parse(in);
    } catch (const Json::parse_error& e) {
        throw std::runtime_error(path + " is not valid JSON: " + e.what());
    }
}

const Json& lab_config() {
    static const Json config = [] {
        const char* path = std::getenv("GPULAB_LAB_CONFIG");
        if (!path || !*path) throw std::runtime_error("GPULAB_LAB_CONFIG is not set");
        Json config = load_json_file(path);
#ifdef GPULAB_CPU_MODE
        // CPU execution mode may run smaller problems: "cpu_mode" is a JSON merge patch over the config.
        if (config.contains("cpu_mode")) config.merge_patch(config.at("cpu_mode"));
#endif
        return config;
    }();
    return config;
}

const Json& config_at(const Json& node, const std::string& key) {
    if (!node.is_object() || !node.contains(key))
        throw std::runtime_error("lab config has no key \"" + key + "\"");
    return node.at(key);
}

const Json* lab_test_entry(const std::string& id) {
    try {
        for (const Json& test : lab_config().at("tests"))
            if (test.value("id", std::string()) == id) return &test;
    } catch (const std::exception&) {
    }
    return nullptr;
}

bool lab_lists_test(const std::string& id) { return lab_test_entry(id) != nullptr; }

}  // namespace gpulab
