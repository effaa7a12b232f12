#include "cpu_shares.h"

#include <sched.h>

#include <algorithm>

namespace gpulab::runner {

std::vector<int> allowed_cpus() {
    std::vector<int> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0)
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    return cpus;
}

std::vector<std::vector<int>> cpu_shares(const std::vector<int>& cpus, int count) {
    std::vector<std::vector<int>> shares(std::max(count, 0));
    if (shares.empty() || cpus.empty()) return shares;
    if (int(cpus.size()) < count) {
        for (int i = 0; i < count; ++i) shares[i].push_back(cpus[i % cpus.size()]);
        return shares;
    }
    // Consecutive numbers: on most machines a socket's (and its GPUs') cores are numbered together.
    const std::size_t base = cpus.size() / count, extra = cpus.size() % count;
    std::size_t next = 0;
    for (int i = 0; i < count; ++i) {
        const std::size_t size = base + (std::size_t(i) < extra ? 1 : 0);
        shares[i].assign(cpus.begin() + next, cpus.begin() + next + size);
        next += size;
    }
    return shares;
}

std::string cpu_list_text(const std::vector<int>& cpus) {
    std::string text;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
        if (!text.empty()) text += ",";
        text += std::to_string(cpus[i]);
        if (j > i) text += "-" + std::to_string(cpus[j]);
        i = j + 1;
    }
    return text;
}

}  // namespace gpulab::runner
