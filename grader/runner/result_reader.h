// gpulab-grade's end of one grader process's result channel (gpulab/result_channel.h): reads the
// pipe without blocking, accepts only events signed with the key this process was given, in sequence
// and in an order the grader itself produces, and says what was wrong the first time they are not.
#pragma once

#include "child_process.h"

#include "gpulab/result_channel.h"

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace gpulab::runner {

class ResultReader {
public:
    // `fd`: the read end of the result pipe (made non-blocking here). `tests`: the tests this process
    // was asked to run; any other name in an event is a forgery.
    ResultReader(int fd, const ChannelKey& key, std::set<std::string> tests);
    ~ResultReader();
    ResultReader(const ResultReader&) = delete;
    ResultReader& operator=(const ResultReader&) = delete;

    // Reads whatever has arrived; returns the events accepted, in order.
    std::vector<nlohmann::json> poll();
    // After the process ended: reads the rest, then checks that it ended the way the grader ends.
    std::vector<nlohmann::json> finish(const ExitStatus& status);

    bool tampered() const { return !tampering_.empty(); }
    const std::string& tampering() const { return tampering_; }  // what was wrong, for the report
    bool closed() const { return closed_; }       // the grader's closing event arrived
    bool heard_anything() const { return verifier_.events_accepted() > 0; }

private:
    void accept(const std::string& line, std::vector<nlohmann::json>& out);
    void check_order(const nlohmann::json& event);
    void reject(const std::string& why);

    int fd_;
    EventVerifier verifier_;
    std::set<std::string> tests_, reported_;
    std::string buffer_, running_, last_ended_, tampering_;
    bool closed_ = false;
};

}  // namespace gpulab::runner
