// What the call check's tests share (call_policy_test.cpp, admission_test.cpp): the sample objects compiled from
// this folder (never linked), and a folder of source files that lives as long as one test.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gpulab::runner::call_samples {

// The sample object compiled from call_samples/<name>.cpp (CALL_SAMPLE_OBJECTS: their paths, '|'-separated).
inline std::string sample_object(const std::string& name) {
    std::istringstream all(CALL_SAMPLE_OBJECTS);
    for (std::string object; std::getline(all, object, '|');)
        if (std::filesystem::path(object).filename().string().rfind(name + ".cpp", 0) == 0) return object;
    throw std::runtime_error("no sample object for " + name);
}

// A folder of source files for one test, removed afterwards.
class SourceFolder {
public:
    explicit SourceFolder(const std::string& purpose)
        : dir_(std::filesystem::temp_directory_path() / ("gpulab-" + purpose + "-" + std::to_string(::getpid()))) {
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    ~SourceFolder() { std::filesystem::remove_all(dir_); }
    SourceFolder(const SourceFolder&) = delete;
    SourceFolder& operator=(const SourceFolder&) = delete;
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(dir_ / name) << text;
        return (dir_ / name).string();
    }
    std::string path() const { return dir_.string(); }

private:
    std::filesystem::path dir_;
};

}  // namespace gpulab::runner::call_samples
