#include "gpulab/access_analysis.h"

#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/lab_config.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace gpulab {
namespace {

double ratio(double a, double b) { return b > 0 ? a / b : 0; }

std::string percent(double share) { return fixed(100 * share, 0) + "%"; }

}  // namespace

AccessFigures analyze_access(const GeometryCheck& launch, TimedCountOptions options) {
    AccessFigures f;
    f.suite = launch.suite, f.instance = launch.instance, f.call = launch.call;
    options.shared.on = true;
    const TimedLaunchCount c = count_timed_launch(launch, options);
    f.seconds = c.seconds;
    f.blocks = c.blocks_run, f.grid_blocks = c.grid_blocks;
    if (!c.count.available) {
        f.why = c.count.why;
        return f;
    }
    // The output is what the launch wrote; its inputs are the other buffers it read.
    double read = 0, written = 0, load_bytes = 0, store_bytes = 0;
    unsigned long long load_requests = 0, load_sectors = 0, store_requests = 0, store_sectors = 0;
    unsigned long long load_lanes = 0, store_lanes = 0;
    for (std::size_t b = 0; b < c.count.ranges.size(); ++b) {
        const RangeCount& r = c.count.ranges[b];
        if (r.bytes_written > 0) written += c.bytes_written(b);
        else read += c.bytes_read(b);
        load_bytes += double(r.bytes_read), store_bytes += double(r.bytes_written);
        load_requests += r.load_requests, load_sectors += r.load_sectors;
        store_requests += r.store_requests, store_sectors += r.store_sectors;
        load_lanes += r.load_lanes, store_lanes += r.store_lanes;
    }
    if (written == 0) {
        f.why = "the counted blocks wrote nothing";
        return f;
    }
    f.available = true;
    for (unsigned every : c.page_every) f.pages_sampled |= every > 1;
    f.input_bytes_per_output_byte = read / written;
    f.load_sector_use = ratio(load_bytes, 32.0 * load_sectors);
    f.store_sector_use = ratio(store_bytes, 32.0 * store_sectors);
    f.load_sectors_per_request = ratio(load_sectors, load_requests);
    f.store_sectors_per_request = ratio(store_sectors, store_requests);
    f.load_sectors_per_lane = ratio(load_sectors, load_lanes);
    f.store_sectors_per_lane = ratio(store_sectors, store_lanes);
    const SharedCount& s = c.count.shared;
    // Shared counts are not scaled by page sampling: compare them with the bytes the same blocks wrote.
    double written_counted = 0;
    for (const RangeCount& r : c.count.ranges) written_counted += double(r.bytes_written);
    // A block whose shared accesses were counted in part (its budget ran out) has no whole figure per byte.
    f.shared_bytes_read_per_output_byte =
        s.blocks_capped ? std::nan("") : ratio(double(s.bytes_read), written_counted);
    f.shared_load_conflicts_per_request = ratio(s.load_conflicts, s.load_requests);
    f.shared_store_conflicts_per_request = ratio(s.store_conflicts, s.store_requests);
    f.shared_capped = s.blocks_capped > 0;
    const KernelConfiguration config = configuration_of(c.launches, launch.call);
    f.threads_per_block = config.block.x * config.block.y * config.block.z;
    f.shared_bytes = config.shared_bytes;
    f.occupancy = theoretical_occupancy(f.threads_per_block, f.shared_bytes);
    MemoryFigures m;
    m.threads_per_block = f.threads_per_block;
    m.shared_bytes = f.shared_bytes;
    if (load_requests) m.load_sector_use = f.load_sector_use, m.load_sectors_per_lane = f.load_sectors_per_lane;
    if (store_requests) m.store_sector_use = f.store_sector_use, m.store_sectors_per_lane = f.store_sectors_per_lane;
    m.shared_load_conflicts_per_request = f.shared_load_conflicts_per_request;
    m.shared_store_conflicts_per_request = f.shared_store_conflicts_per_request;
    f.diagnoses = diagnose(m);
    return f;
}

std::string access_table(const std::vector<AccessFigures>& rows) {
    std::ostringstream out;
    out << "CPU execution mode: exact access analysis, no timing (a sample of each timed launch's blocks)\n";
    char line[512];
    std::snprintf(line, sizeof line, "  %-44s %9s %10s %10s %9s %12s %12s %10s\n", "launch", "in B/out B", "load use",
                  "store use", "shm B/out", "conf/ld req", "conf/st req", "occupancy");
    out << line;
    for (const AccessFigures& f : rows) {
        if (!f.available) {
            out << "  " << f.call << ": not counted (" << f.why << ")\n";
            continue;
        }
        const std::string shm = std::isnan(f.shared_bytes_read_per_output_byte)
                                    ? std::string("part") : fixed(f.shared_bytes_read_per_output_byte, 2);
        const std::string in = (f.pages_sampled ? "~" : "") + fixed(f.input_bytes_per_output_byte, 2);
        std::snprintf(line, sizeof line, "  %-44s %9s %10s %10s %9s %12.2f %12.2f %10s\n", f.call.c_str(),
                      in.c_str(), percent(f.load_sector_use).c_str(),
                      percent(f.store_sector_use).c_str(), shm.c_str(),
                      f.shared_load_conflicts_per_request, f.shared_store_conflicts_per_request,
                      ("<= " + percent(f.occupancy.theoretical)).c_str());
        out << line;
    }
    for (const AccessFigures& f : rows)
        for (const Diagnosis& d : f.diagnoses) out << "  " << f.call << ": " << d.text << " [" << d.cause << "]\n";
    out << "  in B/out B: global bytes read per byte written (~: estimated from a sample of the pages); load/store use: bytes used of the 32-byte sectors each "
           "warp request touched (100% = coalesced); shm B/out: shared bytes read per byte written (part: a block's shared accesses were counted in part, the conflicts from that part); conf/req: bank "
           "conflicts (extra wavefronts) per shared request; occupancy: the most its block shape and shared memory "
           "allow on an H100/H200 (registers not counted here)\n";
    return out.str();
}

namespace {
class AccessReportTest : public testing::Test {
public:
    void TestBody() override { report_access_analysis(); }
};
}  // namespace

void register_access_report() {
    bool listed = false;
    try {
        for (const Json& test : lab_config().at("tests")) listed |= test.value("id", std::string()) == "Report.AccessAnalysis";
    } catch (const std::exception&) {
        return;  // a broken config fails the tests that read it
    }
    if (!listed) return;
    testing::RegisterTest("Report", "AccessAnalysis", nullptr, nullptr, __FILE__, __LINE__,
                          []() -> testing::Test* { return new AccessReportTest; });
}

void report_access_analysis() {
    GPULAB_REQUIRE_READ_COUNTER();
    const Json& lab = lab_config();
    const Json spec = lab.contains("access_analysis") ? lab.at("access_analysis") : Json::object();
    TimedCountOptions options;
    options.blocks = spec.value("blocks", 8ull);
    if (spec.contains("page_every")) options.page_every = spec.at("page_every").get<std::vector<unsigned>>();
    options.shared.faults_per_block = spec.value("shared_faults_per_block", 20000ull);
    std::vector<std::string> suites, instances;
    if (spec.contains("suites")) suites = spec.at("suites").get<std::vector<std::string>>();
    if (spec.contains("instances")) instances = spec.at("instances").get<std::vector<std::string>>();
    std::vector<AccessFigures> rows;
    for (const GeometryCheck& launch : timed_launches()) {
        if (!suites.empty() && std::find(suites.begin(), suites.end(), launch.suite) == suites.end()) continue;
        if (!instances.empty() && std::find(instances.begin(), instances.end(), launch.instance) == instances.end())
            continue;
        try {
            rows.push_back(analyze_access(launch, options));
        } catch (const std::exception& e) {
            AccessFigures f;
            f.call = launch.call;
            f.why = e.what();
            rows.push_back(f);
        }
        const AccessFigures& f = rows.back();
        const std::string key = f.suite + "_" + f.instance;
        if (f.available) {
            testing::Test::RecordProperty("access_" + key,
                                          fixed(f.input_bytes_per_output_byte, 2) + " in B/out B, loads " +
                                              percent(f.load_sector_use) + " of sectors used, stores " +
                                              percent(f.store_sector_use) + ", " +
                                              fixed(f.shared_load_conflicts_per_request, 2) +
                                              " bank conflicts per shared load");
        }
    }
    GPULAB_ASSERT(!rows.empty()) << "grader error: this lab registered no timed launch to analyse";
    std::string causes;
    for (const AccessFigures& f : rows)
        for (const Diagnosis& d : f.diagnoses) causes += (causes.empty() ? "" : ", ") + f.suite + ": " + d.cause;
    testing::Test::RecordProperty("causes", causes);
    const std::string table = access_table(rows);
    std::printf("%s", table.c_str());
    // The grade table's line: the figures themselves for a lab of one or two timed launches.
    double seconds = 0;
    int counted = 0;
    std::string measured;
    for (const AccessFigures& f : rows) {
        seconds += f.seconds, counted += f.available;
        if (f.available)
            measured += (measured.empty() ? "" : "; ") + f.suite + ": " +
                        (f.diagnoses.empty() ? "" : f.diagnoses.front().cause + "; ") +
                        fixed(f.input_bytes_per_output_byte, 2) + " B read/B written, sectors used: loads " +
                        percent(f.load_sector_use) + ", stores " + percent(f.store_sector_use) + ", " +
                        fixed(f.shared_load_conflicts_per_request, 1) + " bank conflicts/shared load";
    }
    if (rows.size() > 2 || measured.empty())
        measured = std::to_string(counted) + " of " + std::to_string(rows.size()) + " timed launches analysed";
    record_figure(measured + " (" + fixed(seconds, 1) + " s; table in tests.log)", "a report: no bar");
}

}  // namespace gpulab
