#include "gpulab/cause_lines.h"

#include "gpulab/format.h"
#include "gpulab/source_lines.h"

#include <algorithm>
#include <functional>
#include <map>

namespace gpulab {
namespace {

// One source line's share of a cause: what it adds to the cause (`weight`), and the requests its figure is over.
struct LineTally {
    double weight = 0, requests = 0, measure = 0;  // measure: sectors, extra turns or idle requests, per request
};

// How a cause is put down to instructions: each instruction's weight in it, its requests, what its figure measures
// per request, and the sentence of one line's figure.
struct CauseRule {
    std::function<double(const InstructionCount&)> weight, requests, measure;
    std::function<std::string(const LineTally&, double share)> figure;
};

// The sectors an instruction's requests fetched beyond half a sector a lane: none for a warp of lanes that share
// their sectors (4-byte lanes take 1/8 of a sector each, 8-byte 1/4, 16-byte 1/2), one a lane less half for lanes far
// apart. What makes a line uncoalesced, where its sectors alone would name the busiest coalesced load.
double excess_sectors(unsigned long long sectors, unsigned long long lanes) {
    return std::max(0.0, double(sectors) - 0.5 * double(lanes));
}

const std::map<std::string, CauseRule>& rules() {
    static const std::map<std::string, CauseRule> r = {
        {"uncoalesced-loads",
         {[](const InstructionCount& i) { return excess_sectors(i.load_sectors, i.load_lanes); },
          [](const InstructionCount& i) { return double(i.load_lanes); },
          [](const InstructionCount& i) { return double(i.load_sectors); },
          [](const LineTally& t, double share) {  // per lane: a count on sampled pages sees few lanes a request
              return fixed(32 * t.measure / t.requests, 1) + " sectors for a warp's 32 loads (" + pct(share) +
                     " of the kernel's uncoalesced load sectors)";
          }}},
        {"uncoalesced-stores",
         {[](const InstructionCount& i) { return excess_sectors(i.store_sectors, i.store_lanes); },
          [](const InstructionCount& i) { return double(i.store_lanes); },
          [](const InstructionCount& i) { return double(i.store_sectors); },
          [](const LineTally& t, double share) {  // per lane: a count on sampled pages sees few lanes a request
              return fixed(32 * t.measure / t.requests, 1) + " sectors for a warp's 32 stores (" + pct(share) +
                     " of the kernel's uncoalesced store sectors)";
          }}},
        {"bank-conflicts",
         {[](const InstructionCount& i) { return double(i.shared_load_conflicts + i.shared_store_conflicts); },
          [](const InstructionCount& i) { return double(i.shared_load_requests + i.shared_store_requests); },
          [](const InstructionCount& i) { return double(i.shared_load_conflicts + i.shared_store_conflicts); },
          [](const LineTally& t, double share) {
              return fixed(t.measure / t.requests, 1) + " extra turns per shared-memory request (" + pct(share) +
                     " of the kernel's bank conflicts)";
          }}},
        {"divergent-warps",
         {[](const InstructionCount& i) { return double(i.idle_requests); },
          [](const InstructionCount& i) {
              return double(i.load_requests + i.store_requests + i.shared_load_requests + i.shared_store_requests);
          },
          [](const InstructionCount& i) { return double(i.idle_requests); },
          [](const LineTally& t, double share) {
              return pct(t.measure / t.requests) + " of its requests issued with idle lanes (" + pct(share) +
                     " of the kernel's such requests)";
          }}},
    };
    return r;
}

}  // namespace

std::string name_cause_lines(std::vector<Diagnosis>& diagnoses, const std::vector<InstructionCount>& instructions) {
    bool wanted = false;
    for (const Diagnosis& d : diagnoses) wanted = wanted || rules().count(d.cause);
    if (!wanted || instructions.empty()) return wanted ? "no instruction was counted" : "";
    std::vector<std::uintptr_t> addresses;
    for (const InstructionCount& i : instructions) addresses.push_back(i.ip);
    std::string why;
    const std::vector<SourceLine> lines = source_lines_of(addresses, &why);
    std::string none;
    for (Diagnosis& d : diagnoses) {
        const auto rule = rules().find(d.cause);
        if (rule == rules().end()) continue;
        // The instructions of one line add up (a line's load may be several instructions).
        std::map<std::string, LineTally> by_line;
        double total = 0;
        for (std::size_t k = 0; k < instructions.size(); ++k) {
            const double w = rule->second.weight(instructions[k]);
            if (w <= 0) continue;
            total += w;
            if (k >= lines.size() || lines[k].file.empty()) continue;
            LineTally& t = by_line[lines[k].quoted()];
            t.weight += w;
            t.requests += rule->second.requests(instructions[k]);
            t.measure += rule->second.measure(instructions[k]);
        }
        std::vector<std::pair<std::string, LineTally>> ranked(by_line.begin(), by_line.end());
        std::stable_sort(ranked.begin(), ranked.end(),
                         [](const auto& a, const auto& b) { return a.second.weight > b.second.weight; });
        for (const auto& [quoted, tally] : ranked) {
            const double share = total > 0 ? tally.weight / total : 0;
            if (d.lines.size() >= kMaxCauseLines || share < kLeastCauseShare || tally.requests <= 0) break;
            d.lines.push_back(quoted + ": " + rule->second.figure(tally, share));
        }
        if (d.lines.empty() && none.empty()) none = why.empty() ? "no line holds " + pct(kLeastCauseShare) + " of it" : why;
    }
    return none;
}

}  // namespace gpulab
