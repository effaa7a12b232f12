#include "progress.h"

#include <cstdio>
#include <iostream>

namespace gpulab::grade_class {

Progress::Progress(int total, bool terminal) : total_(total), terminal_(terminal) {}

std::string Progress::line() const {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const int width = 24;
    const int filled = total_ ? done_ * width / total_ : width;
    std::string bar = "[" + std::string(filled, '#') + std::string(width - filled, '.') + "]";
    char text[96];
    std::snprintf(text, sizeof text, " %d/%d, %d failed", done_, total_, failures_);
    std::string out = bar + text;
    if (done_ > 0 && done_ < total_) {
        const int left = int(elapsed / done_ * (total_ - done_));
        out += ", about " + (left >= 120 ? std::to_string(left / 60) + " min" : std::to_string(left) + " s") + " left";
    }
    if (!current_.empty()) out += " | " + current_;
    return out;
}

void Progress::draw() {
    if (terminal_) std::cerr << "\r\033[K" << line() << std::flush;
}

void Progress::started(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    current_ = what;
    if (terminal_) draw();
    else std::cerr << "[gpulab-grade-class] " << line() << "\n";
}

void Progress::finished(const std::string& what, bool failed) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    failures_ += failed;
    current_ = what;
    if (terminal_) draw();
    else std::cerr << "[gpulab-grade-class] " << line() << "\n";
    if (terminal_ && done_ == total_) std::cerr << "\n";
}

void Progress::note(const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (terminal_) std::cerr << "\r\033[K";
    std::cerr << line << "\n";
    draw();
}

}  // namespace gpulab::grade_class
