#include "gpulab/demangle.h"

#include "gpulab/child_spawn.h"
#include "gpulab/program_on_path.h"

#include <cxxabi.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

namespace gpulab {

std::string demangle(const std::string& name) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    if (status == 0 && text) return text.get();
    if (name.rfind("_Z", 0) != 0) return name;
    static std::mutex mutex;
    static std::map<std::string, std::string> cache;
    std::lock_guard<std::mutex> lock(mutex);
    if (const auto found = cache.find(name); found != cache.end()) return found->second;
    std::string out = name;
    if (const std::string filt = program_on_path("c++filt"); !filt.empty()) {
        const ToolRun run = run_tool({filt, name});
        if (run.succeeded()) {
            out = run.output;
            while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
            if (out.empty()) out = name;
        }
    }
    return cache.emplace(name, out).first->second;
}

}  // namespace gpulab
