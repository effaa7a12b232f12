#include "text_file.h"

#include <fstream>
#include <sstream>

namespace gpulab::runner {

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string tail_of(const std::string& text, std::size_t bytes) {
    return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

}  // namespace gpulab::runner
