// The channel a lab's grader binary reports its results on, made so that code running inside that
// process (the student's library is loaded into it) cannot forge them in any simple way.
//
// gpulab-grade starts each grader process with two inherited pipes:
//  - the handshake pipe (its number on the command line, --gpulab_handshake_fd=N): one JSON object
//    with a fresh random key and where the solution libraries are. The grader reads it and closes it
//    before any student code is loaded, so the key is never in the environment, on the command line
//    or in a file;
//  - the result pipe: one line per event, "<hex HMAC-SHA256 of the JSON> <JSON>", each JSON carrying
//    "seq", counting from 0 in the order written.
// gpulab-grade accepts only lines whose MAC checks out under the key it handed this process, in
// sequence, in an order the grader can produce (start, then end of the same test; a closing event
// last). Anything else means something other than the grader wrote to the channel.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <map>
#include <string>

namespace gpulab {

using ChannelKey = std::array<unsigned char, 32>;

// A key from the operating system's cryptographic random source.
ChannelKey random_channel_key();
std::string to_hex(const ChannelKey& key);
ChannelKey key_from_hex(const std::string& hex);  // throws std::invalid_argument

// "<mac> <json>\n" for `event` (which must already hold its "seq").
std::string sign_event(const ChannelKey& key, const nlohmann::json& event);

// Thrown for a line that did not come from the grader holding the key.
class ForgedEvent : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Checks one line (without its newline): the MAC, then that "seq" is the one expected next.
// Returns the event; throws ForgedEvent saying what was wrong.
class EventVerifier {
public:
    explicit EventVerifier(const ChannelKey& key) : key_(key) {}
    nlohmann::json verify(const std::string& line);
    std::uint64_t events_accepted() const { return next_seq_; }

private:
    ChannelKey key_;
    std::uint64_t next_seq_ = 0;
};

// What the handshake pipe carries.
struct GraderHandshake {
    ChannelKey key{};
    int result_fd = -1;
    std::string student_library;
    std::string reference_library;
    // Reference libraries of other labs this lab's reports draw on (lab.json "companions"), by lab name.
    std::map<std::string, std::string> companion_references;
    // What tests of the same grading decided before this process told (handed_over.h): their outcomes and the
    // properties later processes read.
    nlohmann::json handed_over = nlohmann::json::object();
    std::string to_json() const;
    static GraderHandshake from_json(const std::string& text);  // throws std::runtime_error
};

}  // namespace gpulab
