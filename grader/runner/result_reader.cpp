#include "result_reader.h"

#include <fcntl.h>
#include <unistd.h>

namespace gpulab::runner {

ResultReader::ResultReader(int fd, const ChannelKey& key, std::set<std::string> tests)
    : fd_(fd), verifier_(key), tests_(std::move(tests)) {
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
}

ResultReader::~ResultReader() { ::close(fd_); }

void ResultReader::reject(const std::string& why) {
    if (tampering_.empty()) tampering_ = why;
}

std::vector<nlohmann::json> ResultReader::poll() {
    std::vector<nlohmann::json> accepted;
    char chunk[65536];
    for (;;) {
        const auto got = ::read(fd_, chunk, sizeof chunk);
        if (got <= 0) break;
        buffer_.append(chunk, std::size_t(got));
    }
    std::size_t begin = 0;
    for (std::size_t end; (end = buffer_.find('\n', begin)) != std::string::npos; begin = end + 1)
        accept(buffer_.substr(begin, end - begin), accepted);
    buffer_.erase(0, begin);
    return accepted;
}

void ResultReader::accept(const std::string& line, std::vector<nlohmann::json>& out) {
    if (tampered()) return;  // nothing after the first forgery counts
    try {
        nlohmann::json event = verifier_.verify(line);
        check_order(event);
        if (!tampered()) out.push_back(std::move(event));
    } catch (const ForgedEvent& forged) {
        reject(forged.what());
    }
}

// The grader writes: device, then per test start and end, then one closing event (finished, or
// context_lost or stopped right after an end, or timeout during a test).
void ResultReader::check_order(const nlohmann::json& event) {
    const std::string kind = event.value("event", "");
    const std::string test = event.value("test", "");
    if (closed_) return reject("an event (" + kind + ") after the grader's closing event");
    if (kind == "device") {
        if (!running_.empty() || !reported_.empty()) reject("a device report in the middle of the tests");
    } else if (kind == "start") {
        if (!running_.empty()) return reject("\"" + test + "\" started while \"" + running_ + "\" was running");
        if (!tests_.count(test)) return reject("a result for \"" + test + "\", which this process was not asked to run");
        if (reported_.count(test)) return reject("\"" + test + "\" reported twice");
        running_ = test;
    } else if (kind == "end") {
        if (test != running_) return reject("an end for \"" + test + "\" with no start");
        reported_.insert(test);
        last_ended_ = test;
        running_.clear();
    } else if (kind == "timeout") {
        if (test != running_) return reject("a time-out for \"" + test + "\", which was not running");
        closed_ = true;
    } else if (kind == "context_lost" || kind == "stopped") {
        if (!running_.empty() || test != last_ended_) return reject("a lost context out of place");
        closed_ = true;
    } else if (kind == "finished") {
        if (!running_.empty()) return reject("a closing event while \"" + running_ + "\" was running");
        closed_ = true;
    } else {
        reject("an event of unknown kind \"" + kind + "\"");
    }
}

std::vector<nlohmann::json> ResultReader::finish(const ExitStatus& status) {
    std::vector<nlohmann::json> accepted = poll();
    // A process killed by a signal (a crash, the time limit) may stop mid-line: that is no forgery.
    // One that exited on its own did so through the grader's closing event, or through code that
    // ended the process under the grader's feet.
    if (status.exited && !closed_ && heard_anything())
        reject("the grader process ended (exit code " + std::to_string(status.code) + ") " +
               (running_.empty() ? "between two tests" : "during " + running_) +
               " without the grader's closing event: code in the solution ended the process (exit, _exit, ...)");
    return accepted;
}

}  // namespace gpulab::runner
