#include "gpulab/cause_lines.h"

#include "gpulab/format.h"
#include "gpulab/source_lines.h"

#include <algorithm>
#include <functional>
#include <map>

namespace gpulab {
namespace {

// One source line's share of a cause: what it adds to the cause (`weight`), and its figure: `measure` (sectors, extra
// turns or idle requests) over `per` (lanes or requests).
struct LineTally {
    double weight = 0, per = 0, measure = 0;
};

// How a cause is put down to instructions: each instruction's weight in it, what its figure is per and what it
// measures, and the sentence of one line's figure.
struct CauseRule {
    std::function<double(const InstructionCount&)> weight, per, measure;
    std::function<std::string(const LineTally&, double share)> figure;
};

// The sectors an instruction's requests fetched beyond half a sector a lane: none for a warp of lanes that share
// their sectors (4-byte lanes take 1/8 of a sector each, 8-byte 1/4, 16-byte 1/2), one a lane less half for lanes far
// apart. What makes a line uncoalesced, where its sectors alone would name the busiest coalesced load.
double excess_sectors(unsigned long long sectors, unsigned long long lanes) {
    return std::max(0.0, double(sectors) - 0.5 * double(lanes));
}

// Uncoalesced loads or stores: weighed by their excess sectors, shown per lane (a count on sampled pages sees few
// lanes a request) as the sectors a warp's 32 lanes would fetch.
using CountField = unsigned long long InstructionCount::*;
CauseRule uncoalesced(CountField sectors, CountField lanes, const std::string& access) {
    return {[=](const InstructionCount& i) { return excess_sectors(i.*sectors, i.*lanes); },
            [=](const InstructionCount& i) { return double(i.*lanes); },
            [=](const InstructionCount& i) { return double(i.*sectors); },
            [=](const LineTally& t, double share) {
                return fixed(32 * t.measure / t.per, 1) + " sectors for a warp's 32 " + access + "s (" + pct(share) +
                       " of the kernel's uncoalesced " + access + " sectors)";
            }};
}

CauseRule bank_conflicts() {
    return {[](const InstructionCount& i) { return double(i.shared_load_conflicts + i.shared_store_conflicts); },
            [](const InstructionCount& i) { return double(i.shared_load_requests + i.shared_store_requests); },
            [](const InstructionCount& i) { return double(i.shared_load_conflicts + i.shared_store_conflicts); },
            [](const LineTally& t, double share) {
                return fixed(t.measure / t.per, 1) + " extra turns per shared-memory request (" + pct(share) +
                       " of the kernel's bank conflicts)";
            }};
}

// Divergent warps: CPU execution mode knows which requests had idle lanes; the GPU, how many lanes of them idled.
CauseRule divergent_warps(LaneCount lanes) {
    if (lanes == LaneCount::average)
        return {[](const InstructionCount& i) { return double(i.idle_requests); },
                [](const InstructionCount& i) { return 32 * double(i.memory_requests()); },
                [](const InstructionCount& i) { return double(i.idle_requests); },
                [](const LineTally& t, double share) {
                    return pct(t.measure / t.per) + " of its requests' lanes idle (" + pct(share) +
                           " of the kernel's idle lanes)";
                }};
    return {[](const InstructionCount& i) { return double(i.idle_requests); },
            [](const InstructionCount& i) { return double(i.memory_requests()); },
            [](const InstructionCount& i) { return double(i.idle_requests); },
            [](const LineTally& t, double share) {
                return pct(t.measure / t.per) + " of its requests issued with idle lanes (" + pct(share) +
                       " of the kernel's requests with idle lanes)";
            }};
}

const std::map<std::string, CauseRule>& rules(LaneCount lanes) {
    static const auto make = [](LaneCount l) {
        return std::map<std::string, CauseRule>{
            {"uncoalesced-loads", uncoalesced(&InstructionCount::load_sectors, &InstructionCount::load_lanes, "load")},
            {"uncoalesced-stores", uncoalesced(&InstructionCount::store_sectors, &InstructionCount::store_lanes, "store")},
            {"bank-conflicts", bank_conflicts()},
            {"divergent-warps", divergent_warps(l)},
        };
    };
    static const std::map<std::string, CauseRule> exact = make(LaneCount::exact), average = make(LaneCount::average);
    return lanes == LaneCount::exact ? exact : average;
}

}  // namespace

bool is_line_cause(const std::string& cause) { return rules(LaneCount::exact).count(cause) > 0; }

bool is_launch_cause(const std::string& cause) {
    return cause == "small-blocks" || cause == "shared-memory-limits-occupancy" || cause == "register-limits-occupancy" ||
           cause == "blocks-end-before-they-start" || cause == "grid-smaller-than-gpu" || cause == "launch-overhead";
}

bool needs_instruction_counts(const std::string& cause) { return is_line_cause(cause) || cause == "barrier-stalls"; }

void name_barrier_lines(std::vector<Diagnosis>& diagnoses, std::vector<std::pair<std::string, double>> barriers) {
    double total = 0;
    for (const auto& [line, executions] : barriers) total += executions;
    std::stable_sort(barriers.begin(), barriers.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (Diagnosis& d : diagnoses) {
        if (d.cause != "barrier-stalls" || !d.lines.empty() || total <= 0) continue;
        for (const auto& [line, executions] : barriers) {
            if (d.lines.size() >= kMaxCauseLines || executions < kLeastCauseShare * total) break;
            d.lines.push_back({line, fixed(executions, 0) + " warp executions of this barrier (" +
                                         pct(executions / total) + " of the barriers your warps executed)"});
        }
    }
}

void name_launch_line(std::vector<Diagnosis>& diagnoses, const std::string& launch_line, const std::string& configuration) {
    if (launch_line.empty()) return;
    for (Diagnosis& d : diagnoses)
        if (is_launch_cause(d.cause) && d.lines.empty()) d.lines.push_back({launch_line, "the launch: " + configuration});
}

std::string name_cause_lines(std::vector<Diagnosis>& diagnoses, const std::vector<InstructionCount>& instructions) {
    bool wanted = false;
    for (const Diagnosis& d : diagnoses) wanted = wanted || rules(LaneCount::exact).count(d.cause);
    if (!wanted || instructions.empty()) return wanted ? "no instruction was counted" : "";
    std::vector<std::uintptr_t> addresses;
    for (const InstructionCount& i : instructions) addresses.push_back(i.ip);
    std::string why;
    std::vector<std::string> quoted;
    for (const SourceLine& line : source_lines_of(addresses, &why)) quoted.push_back(line.quoted());
    return name_cause_lines(diagnoses, instructions, quoted, why, LaneCount::exact);
}

std::string name_cause_lines(std::vector<Diagnosis>& diagnoses, const std::vector<InstructionCount>& instructions,
                             const std::vector<std::string>& quoted, const std::string& why_unknown, LaneCount lanes) {
    bool wanted = false;
    for (const Diagnosis& d : diagnoses) wanted = wanted || rules(lanes).count(d.cause);
    if (!wanted || instructions.empty())
        return !wanted ? "" : why_unknown.empty() ? "no instruction was counted" : why_unknown;
    std::string none;
    for (Diagnosis& d : diagnoses) {
        const auto rule = rules(lanes).find(d.cause);
        if (rule == rules(lanes).end()) continue;
        // The instructions of one line add up (a line's load may be several instructions).
        std::map<std::string, LineTally> by_line;
        double total = 0;
        for (std::size_t k = 0; k < instructions.size(); ++k) {
            const double w = rule->second.weight(instructions[k]);
            if (w <= 0) continue;
            total += w;
            if (k >= quoted.size() || quoted[k].empty()) continue;
            LineTally& t = by_line[quoted[k]];
            t.weight += w;
            t.per += rule->second.per(instructions[k]);
            t.measure += rule->second.measure(instructions[k]);
        }
        std::vector<std::pair<std::string, LineTally>> ranked(by_line.begin(), by_line.end());
        std::stable_sort(ranked.begin(), ranked.end(),
                         [](const auto& a, const auto& b) { return a.second.weight > b.second.weight; });
        for (const auto& [line, tally] : ranked) {
            const double share = total > 0 ? tally.weight / total : 0;
            if (d.lines.size() >= kMaxCauseLines || share < kLeastCauseShare || tally.per <= 0) break;
            d.lines.push_back({line, rule->second.figure(tally, share)});
        }
        if (d.lines.empty() && none.empty())
            none = why_unknown.empty() ? "no line holds " + pct(kLeastCauseShare) + " of it" : why_unknown;
    }
    return none;
}

}  // namespace gpulab
