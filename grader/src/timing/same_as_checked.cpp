#include "gpulab/same_as_checked.h"

#include "gpulab/kernel_resources.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <sstream>

namespace gpulab {
namespace {

const char* const kRule =
    " A timed launch must do exactly the work that was checked: an argument or a value in __constant__ or "
    "__device__ memory that changes with the number of calls or with time (a mode flag) makes the timed launches "
    "other work than the launch whose output was checked. Pass the same arguments and copy the same values on "
    "every call at a size.";

using Kind = RecordedArgument::Kind;

// The index of the '(' that opens the parameter list: the one matching the final ')', so that
// "(anonymous namespace)::k(int)" and "k<(n > 2)>(int)" are read right. npos when the text ends otherwise.
std::size_t parameter_list_start(const std::string& s) {
    if (s.empty() || s.back() != ')') return std::string::npos;
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
        if (s[i] == ')') ++depth;
        else if (s[i] == '(' && --depth == 0) return i;
    }
    return std::string::npos;
}

std::string trimmed(const std::string& s) {
    const auto first = s.find_first_not_of(' '), last = s.find_last_not_of(' ');
    return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

// "float const" and "const float" alike: the type without its const, for telling built-in types apart.
std::string without_const(std::string type) {
    for (std::size_t at; (at = type.find("const")) != std::string::npos;) type.erase(at, 5);
    std::string out;
    for (char c : type)
        if (c != ' ' || (!out.empty() && out.back() != ' ')) out += c;
    return trimmed(out);
}

bool is_integer_type(const std::string& t) {
    static const char* const names[] = {"bool", "char", "signed char", "unsigned char", "short", "unsigned short",
                                        "int", "unsigned int", "long", "unsigned long", "long long",
                                        "unsigned long long", "char16_t", "char32_t", "wchar_t"};
    for (const char* name : names)
        if (t == name) return true;
    return false;
}

std::uint64_t little_endian(const std::vector<unsigned char>& bytes) {
    std::uint64_t v = 0;
    for (std::size_t i = bytes.size(); i-- > 0;) v = (v << 8) | bytes[i];
    return v;
}

std::string signed_text(const std::vector<unsigned char>& bytes) {
    const std::uint64_t v = little_endian(bytes);
    const unsigned bits = unsigned(8 * bytes.size());
    if (bits == 0 || bits >= 64) return std::to_string(static_cast<std::int64_t>(v));
    const std::uint64_t sign = std::uint64_t(1) << (bits - 1);
    return std::to_string(static_cast<std::int64_t>((v ^ sign) - sign));
}

std::string hex_bytes(const std::vector<unsigned char>& bytes) {
    std::ostringstream out;
    out << "{" << std::hex << std::setfill('0');
    for (std::size_t i = 0; i < bytes.size() && i < 16; ++i) out << (i ? " " : "") << std::setw(2) << int(bytes[i]);
    if (bytes.size() > 16) out << " ... (" << std::dec << bytes.size() << " B)";
    out << "}";
    return out.str();
}

// The fewest digits that read back as the same value: 0.2f is "0.2", not "0.200000003".
template <typename F>
std::string shortest(F v) {
    std::ostringstream first;
    first << v;
    if (!std::isfinite(v)) return first.str();
    for (int digits = 1; digits <= 17; ++digits) {
        std::ostringstream out;
        out << std::setprecision(digits) << v;
        std::istringstream back(out.str());
        F read{};
        if (back >> read && read == v) return out.str();
    }
    return first.str();
}

template <typename F>
std::string floating_text(const std::vector<unsigned char>& bytes) {
    F v;
    std::memcpy(&v, bytes.data(), sizeof v);
    return shortest(v);
}

std::string argument_text(const RecordedArgument& a, const std::string& declared) {
    const std::string type = without_const(declared);
    const std::size_t n = a.bytes.size();
    if (a.kind == Kind::device_pointer) return "device pointer";
    if (type.find('*') != std::string::npos || type.find('&') != std::string::npos) {
        const std::uint64_t v = little_endian(a.bytes);
        if (v == 0) return "nullptr";
        std::ostringstream out;
        out << "0x" << std::hex << v;
        return out.str();
    }
    if (type == "float" && n == sizeof(float)) return floating_text<float>(a.bytes);
    if (type == "double" && n == sizeof(double)) return floating_text<double>(a.bytes);
    if (type == "bool" && n == 1) return a.bytes[0] ? "true" : "false";
    const bool sized = n == 1 || n == 2 || n == 4 || n == 8;
    if (sized && is_integer_type(type))
        return type.rfind("unsigned", 0) == 0 ? std::to_string(little_endian(a.bytes)) : signed_text(a.bytes);
    // No signature (CPU execution mode names kernels without one): a small value is most likely an integer.
    if (sized && type.empty()) return signed_text(a.bytes);
    return hex_bytes(a.bytes);
}

// Both device addresses: the same, whichever buffers (same_as_checked.h says why); anything else byte for byte.
bool same_argument(const RecordedArgument& a, const RecordedArgument& b) {
    if (a.kind == Kind::device_pointer && b.kind == Kind::device_pointer) return true;
    return a.bytes == b.bytes;
}

bool same_configuration(const RecordedLaunch& a, const RecordedLaunch& b) {
    return a.kernel == b.kernel && a.grid.x == b.grid.x && a.grid.y == b.grid.y && a.grid.z == b.grid.z &&
           a.block.x == b.block.x && a.block.y == b.block.y && a.block.z == b.block.z &&
           a.shared_bytes() == b.shared_bytes();
}

std::string launch_configuration_text(const RecordedLaunch& l) {
    return kernel_of_signature(kernel_name_of(l.kernel)) + " with " + l.describe();
}

std::string ordinal(std::size_t n) {
    const std::size_t tens = n % 100, units = n % 10;
    const char* suffix = (tens >= 11 && tens <= 13) ? "th" : units == 1 ? "st" : units == 2 ? "nd" : units == 3 ? "rd" : "th";
    return std::to_string(n) + suffix;
}

bool is_symbol_copy(const RecordedCall& c) { return c.symbol != nullptr; }

bool same_copy(const RecordedCall& a, const RecordedCall& b) {
    return a.symbol == b.symbol && a.offset == b.offset && a.bytes == b.bytes && a.source_read && b.source_read &&
           a.digest == b.digest && a.launches_before == b.launches_before;
}

std::string copy_text(const RecordedCall& c) {
    std::string text = symbol_name_of(c.symbol);
    if (c.offset) text += " + " + std::to_string(c.offset) + " B";
    if (c.source_read) text += " = " + c.preview + (c.bytes > 16 ? " ..." : "");
    text += " (" + std::to_string(c.bytes) + " B" + (c.source_read ? "" : " from memory the grader cannot read") + ")";
    text += c.launches_before == 0 ? " before the first kernel" : " after the " + ordinal(c.launches_before) + " kernel";
    return text;
}

std::string copies_text(const std::vector<RecordedCall>& calls) {
    std::string text;
    for (const RecordedCall& c : calls)
        if (is_symbol_copy(c)) text += (text.empty() ? "" : "; ") + copy_text(c);
    return text.empty() ? "no copy" : text;
}

std::vector<RecordedCall> symbol_copies(const std::vector<RecordedCall>& calls) {
    std::vector<RecordedCall> copies;
    for (const RecordedCall& c : calls)
        if (is_symbol_copy(c)) copies.push_back(c);
    return copies;
}

std::string argument_difference(const CheckedLaunch& checked, std::size_t index, const RecordedLaunch& timed) {
    const RecordedLaunch& then = checked.launches[index];
    std::vector<std::size_t> differing;
    for (std::size_t i = 0; i < timed.arguments.size(); ++i)
        if (!same_argument(timed.arguments[i], then.arguments[i])) differing.push_back(i);
    if (differing.empty()) return "";
    const std::string signature = kernel_name_of(timed.kernel);
    const std::vector<std::string> types = parameter_types(signature);
    std::string which;
    for (std::size_t i : differing) {
        const std::string type = i < types.size() ? types[i] : "";
        which += std::string(which.empty() ? "" : "; ") + "argument " + std::to_string(i + 1) +
                 (type.empty() ? "" : " (" + type + ")") + ": " + argument_text(timed.arguments[i], type) + " now, " +
                 argument_text(then.arguments[i], type) + " when checked";
    }
    const std::string where = checked.launches.size() > 1 ? " (its " + ordinal(index + 1) + " kernel launch)" : "";
    return "The timed launch's arguments differ from those of the launch checked at this size (" + checked.call +
           ", whose output was checked before timing)" + where + ": " + arguments_text(signature, timed, differing) +
           " in the timed launch, against " + arguments_text(signature, then, differing) + " in the checked one (" +
           which + ")." + kRule;
}

}  // namespace

std::string kernel_of_signature(const std::string& signature) {
    const std::size_t open = parameter_list_start(signature);
    std::string name = open == std::string::npos ? signature : signature.substr(0, open);
    // A function template's demangled name begins with its return type.
    if (name.rfind("void ", 0) == 0) name.erase(0, 5);
    return trimmed(name);
}

std::string arguments_text(const std::string& signature, const RecordedLaunch& launch, const std::vector<std::size_t>& marked) {
    const std::vector<std::string> types = parameter_types(signature);
    std::string text = kernel_of_signature(signature) + "(";
    for (std::size_t i = 0; i < launch.arguments.size(); ++i) {
        const std::string value = argument_text(launch.arguments[i], i < types.size() ? types[i] : "");
        bool star = false;
        for (std::size_t m : marked) star = star || m == i;
        text += (i ? ", " : "") + (star ? "*" + value + "*" : value);
    }
    return text + ")";
}

std::string differs_from_checked(const CheckedLaunch& checked, const std::vector<RecordedLaunch>& launches,
                                 const std::vector<RecordedCall>& calls) {
    bool same_launches = launches.size() == checked.launches.size();
    for (std::size_t i = 0; same_launches && i < launches.size(); ++i)
        same_launches = same_configuration(launches[i], checked.launches[i]);
    if (!same_launches)
        return "The timed launch ran other kernel launches than the launch checked at this size (" + checked.call +
               ", whose output was checked before timing): " + launches_in_words(launches, launch_configuration_text) +
               " in the timed launch, against " + launches_in_words(checked.launches, launch_configuration_text) +
               " in the checked one." + kRule;
    for (std::size_t i = 0; i < launches.size(); ++i) {
        const RecordedLaunch& now = launches[i];
        const RecordedLaunch& then = checked.launches[i];
        if (!now.arguments_known || !then.arguments_known || now.arguments.size() != then.arguments.size()) continue;
        if (std::string why = argument_difference(checked, i, now); !why.empty()) return why;
    }
    const std::vector<RecordedCall> now = symbol_copies(calls), then = symbol_copies(checked.calls);
    bool same_copies = now.size() == then.size();
    for (std::size_t i = 0; same_copies && i < now.size(); ++i) same_copies = same_copy(now[i], then[i]);
    if (!same_copies)
        return "The timed launch's copies to __constant__ or __device__ variables differ from those of the launch "
               "checked at this size (" + checked.call + ", whose output was checked before timing): " +
               copies_text(now) + " in the timed launch, against " + copies_text(then) + " in the checked one." + kRule;
    return "";
}

}  // namespace gpulab
