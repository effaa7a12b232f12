#include "gpulab/handed_over.h"

#include <mutex>

namespace gpulab {
namespace {
std::mutex g_mutex;
nlohmann::json& store() {
    static nlohmann::json j = nlohmann::json::object();
    return j;
}
}  // namespace

const nlohmann::json& handed_over() {
    std::lock_guard<std::mutex> guard(g_mutex);
    return store();
}

void set_handed_over(nlohmann::json j) {
    std::lock_guard<std::mutex> guard(g_mutex);
    store() = j.is_object() ? std::move(j) : nlohmann::json::object();
}

std::vector<std::string> handed_over_property(const std::string& name) {
    std::vector<std::string> values;
    const nlohmann::json& j = handed_over();
    if (!j.contains("properties") || !j["properties"].contains(name)) return values;
    for (const nlohmann::json& v : j["properties"][name])
        if (v.is_string()) values.push_back(v.get<std::string>());
    return values;
}

std::string handed_over_result(const std::string& test_id) {
    const nlohmann::json& j = handed_over();
    if (!j.contains("outcomes") || !j["outcomes"].contains(test_id)) return "";
    return j["outcomes"][test_id].value("result", "");
}

std::string handed_over_not_run_because(const std::string& test_id) {
    const nlohmann::json& j = handed_over();
    if (!j.contains("outcomes") || !j["outcomes"].contains(test_id)) return "";
    return j["outcomes"][test_id].value("not_run_because", "");
}

}  // namespace gpulab
