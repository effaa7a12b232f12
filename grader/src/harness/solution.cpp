#include "gpulab/solution.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

namespace gpulab {
namespace {

const char* env_name(Role role) { return role == Role::student ? "GPULAB_SOLUTION_LIB" : "GPULAB_REFERENCE_LIB"; }

std::map<Role, std::string>& handed_over() {
    static std::map<Role, std::string> paths;
    return paths;
}

std::map<std::string, std::string>& companions() {
    static std::map<std::string, std::string> paths;
    return paths;
}

const void* open_library(const char* path, const std::string& expected_lab) {
    // RTLD_LOCAL keeps the student's and the reference's identical symbol names apart.
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw std::runtime_error(std::string("cannot load the solution library: ") + dlerror());
    using Entry = const void* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, "gpulab_lab_api"));
    if (!entry) throw std::runtime_error(std::string(path) + " does not export gpulab_lab_api()");
    const void* api = entry();
    const auto* header = static_cast<const LabApiHeader*>(api);
    if (expected_lab != header->lab)
        throw std::runtime_error(std::string(path) + " is a solution of lab " + header->lab + ", not " + expected_lab);
    return api;
}

const void* open_api(Role role, const std::string& expected_lab) {
    const std::string path = solution_library_path(role);
    if (path.empty())
        throw std::runtime_error(std::string(env_name(role)) +
                                 " is not set: run the grader through `make grade` (gpulab-grade), which builds "
                                 "the solution and tells the tests where it is");
    return open_library(path.c_str(), expected_lab);
}

}  // namespace

std::string solution_library_path(Role role) {
    const auto given = handed_over().find(role);
    if (given != handed_over().end()) return given->second;
    const char* path = std::getenv(env_name(role));
    return path ? path : "";
}

void set_companion_references(const std::map<std::string, std::string>& by_lab) { companions() = by_lab; }

bool companion_handed_over(const std::string& name) { return !companion_path(name).empty(); }

std::string companion_path(const std::string& name) {
    const auto given = companions().find(name);
    return given == companions().end() ? std::string() : given->second;
}

void add_companion_reference(const std::string& name, const std::string& path) { companions()[name] = path; }

const void* load_companion_api(const std::string& lab) {
    static std::mutex mutex;
    static std::map<std::string, const void*> loaded;
    std::lock_guard<std::mutex> lock(mutex);
    if (const auto found = loaded.find(lab); found != loaded.end()) return found->second;
    const auto given = companions().find(lab);
    if (given == companions().end() || given->second.empty())
        throw std::runtime_error("the reference of lab " + lab + " was not handed over (is that lab built here?)");
    const void* api = open_library(given->second.c_str(), lab);
    loaded[lab] = api;
    return api;
}

void set_solution_libraries(const std::string& student, const std::string& reference) {
    handed_over()[Role::student] = student;
    handed_over()[Role::reference] = reference;
}

namespace {
std::mutex& api_mutex() {
    static std::mutex mutex;
    return mutex;
}
std::map<Role, const void*>& loaded_apis() {
    static std::map<Role, const void*> loaded;
    return loaded;
}
}  // namespace

const void* load_lab_api(Role role, const std::string& expected_lab) {
    std::lock_guard<std::mutex> lock(api_mutex());
    auto found = loaded_apis().find(role);
    if (found != loaded_apis().end()) return found->second;
    const void* api = open_api(role, expected_lab);
    loaded_apis()[role] = api;
    return api;
}

void serve_student_role_from(Role role, const std::string& expected_lab) {
    const void* api = load_lab_api(role, expected_lab);
    std::lock_guard<std::mutex> lock(api_mutex());
    loaded_apis()[Role::student] = api;
}

}  // namespace gpulab
