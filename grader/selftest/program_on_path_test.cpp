// gpulab/program_on_path.h: the one rule the grader finds python3, compute-sanitizer and the build tools by.
#include "gpulab/program_on_path.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

class ProgramOnPath : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() / ("gpulab-program-on-path-" + std::to_string(::getpid()));
        fs::create_directories(root_ / "folder-first" / "gpulab-probe-tool");  // a folder by the program's name
        fs::create_directories(root_ / "plain-file");
        std::ofstream(root_ / "plain-file" / "gpulab-probe-tool") << "not executable\n";
        fs::create_directories(root_ / "program");
        std::ofstream(root_ / "program" / "gpulab-probe-tool") << "#!/bin/sh\n";
        ::chmod((root_ / "program" / "gpulab-probe-tool").c_str(), 0755);
        if (const char* path = std::getenv("PATH")) saved_path_ = path;
    }
    void TearDown() override {
        ::setenv("PATH", saved_path_.c_str(), 1);
        fs::remove_all(root_);
    }
    fs::path root_;
    std::string saved_path_;
};

TEST_F(ProgramOnPath, TakesTheFirstRunnableFileAndNeverAFolder) {
    const std::string path = (root_ / "folder-first").string() + "::" + (root_ / "plain-file").string() + ":" +
                             (root_ / "program").string();
    ::setenv("PATH", path.c_str(), 1);
    EXPECT_EQ(gpulab::program_on_path("gpulab-probe-tool"), (root_ / "program" / "gpulab-probe-tool").string());
    EXPECT_FALSE(gpulab::is_program_file((root_ / "folder-first" / "gpulab-probe-tool").string()));
    EXPECT_FALSE(gpulab::is_program_file(""));
}

TEST_F(ProgramOnPath, AnEmptyEntryIsNotTheCurrentFolder) {
    const fs::path before = fs::current_path();
    fs::current_path(root_ / "program");
    ::setenv("PATH", ":/nonexistent", 1);
    EXPECT_EQ(gpulab::program_on_path("gpulab-probe-tool"), "") << "the program in the current folder was taken";
    fs::current_path(before);
    ::unsetenv("PATH");
    EXPECT_EQ(gpulab::program_on_path("gpulab-probe-tool"), "");
}

}  // namespace
