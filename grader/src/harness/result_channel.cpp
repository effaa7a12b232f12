#include "gpulab/result_channel.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

namespace gpulab {
namespace {

using Mac = std::array<unsigned char, 32>;

Mac mac_of(const ChannelKey& key, const std::string& text) {
    Mac mac{};
    unsigned int length = 0;
    if (!HMAC(EVP_sha256(), key.data(), int(key.size()), reinterpret_cast<const unsigned char*>(text.data()),
              text.size(), mac.data(), &length) ||
        length != mac.size())
        throw std::runtime_error("HMAC-SHA256 failed (OpenSSL)");
    return mac;
}

template <std::size_t N>
std::string hex_of(const std::array<unsigned char, N>& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

template <std::size_t N>
bool parse_hex(const std::string& hex, std::array<unsigned char, N>& out) {
    if (hex.size() != 2 * N) return false;
    const auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
    };
    for (std::size_t i = 0; i < N; ++i) {
        const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        out[i] = static_cast<unsigned char>(hi * 16 + lo);
    }
    return true;
}

}  // namespace

ChannelKey random_channel_key() {
    ChannelKey key{};
    if (RAND_bytes(key.data(), int(key.size())) != 1) throw std::runtime_error("no random bytes for the result channel key");
    return key;
}

std::string to_hex(const ChannelKey& key) { return hex_of(key); }

ChannelKey key_from_hex(const std::string& hex) {
    ChannelKey key{};
    if (!parse_hex(hex, key)) throw std::invalid_argument("not a 64-digit hex key");
    return key;
}

std::string sign_event(const ChannelKey& key, const nlohmann::json& event) {
    const std::string text = event.dump();
    return hex_of(mac_of(key, text)) + " " + text + "\n";
}

nlohmann::json EventVerifier::verify(const std::string& line) {
    const auto space = line.find(' ');
    Mac claimed{};
    if (space == std::string::npos || !parse_hex(line.substr(0, space), claimed))
        throw ForgedEvent("a line without a valid signature: \"" + line.substr(0, 80) + "\"");
    const std::string text = line.substr(space + 1);
    const Mac actual = mac_of(key_, text);
    if (CRYPTO_memcmp(claimed.data(), actual.data(), actual.size()) != 0)
        throw ForgedEvent("a line whose signature does not match: \"" + text.substr(0, 80) + "\"");
    const nlohmann::json event = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!event.is_object() || !event.contains("seq") || !event.at("seq").is_number_unsigned())
        throw ForgedEvent("a signed line that is not a numbered event");
    const std::uint64_t seq = event.at("seq").get<std::uint64_t>();
    if (seq != next_seq_)
        throw ForgedEvent("event number " + std::to_string(seq) + " where " + std::to_string(next_seq_) +
                          " was due (repeated or out of order)");
    ++next_seq_;
    return event;
}

std::string GraderHandshake::to_json() const {
    return nlohmann::json{{"key", hex_of(key)},
                          {"result_fd", result_fd},
                          {"student_library", student_library},
                          {"reference_library", reference_library},
                          {"companion_references", companion_references},
                          {"handed_over", handed_over}}
        .dump();
}

GraderHandshake GraderHandshake::from_json(const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object()) throw std::runtime_error("the handshake from gpulab-grade is not JSON");
    GraderHandshake h;
    h.key = key_from_hex(j.value("key", ""));
    h.result_fd = j.value("result_fd", -1);
    h.student_library = j.value("student_library", "");
    h.reference_library = j.value("reference_library", "");
    h.companion_references =
        j.value("companion_references", std::map<std::string, std::string>{});
    h.handed_over = j.value("handed_over", nlohmann::json::object());
    return h;
}

}  // namespace gpulab
