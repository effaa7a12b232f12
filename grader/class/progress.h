// The one line an instructor watches while a class is graded: which submission and lab, done / total,
// failures so far and the time left, redrawn in place on a terminal and printed as plain lines in a log.
#pragma once

#include <chrono>
#include <mutex>
#include <string>

namespace gpulab::grade_class {

class Progress {
public:
    Progress(int total, bool terminal);
    void started(const std::string& what);               // "alice 07-matmul: building"
    void finished(const std::string& what, bool failed);  // one submission-lab done
    void note(const std::string& line);                   // a message that must not be overdrawn
    std::string line() const;                             // the current status line

private:
    void draw();
    mutable std::mutex mutex_;
    int total_, done_ = 0, failures_ = 0;
    bool terminal_;
    std::string current_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace gpulab::grade_class
