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
        return load_json_file(path);
    }();
    return config;
}

const Json& config_at(const Json& node, const std::string& key) {
    if (!node.is_object() || !node.contains(key))
        throw std::runtime_error("lab config has no key \"" + key + "\"");
    return node.at(key);
}

}  // namespace gpulab
