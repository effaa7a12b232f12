#include "comparison_study.h"

#include "cpu_matmul.h"
#include "cublas_sgemm.h"
#include "matmul_grading.h"

#include "gpulab/cuda_check.h"
#include "gpulab/device_facts.h"
#include "gpulab/format.h"
#include "gpulab/grader_test.h"
#include "gpulab/guarded_array.h"
#include "gpulab/image.h"
#include "gpulab/phase_clock.h"
#include "gpulab/plot.h"
#include "gpulab/report_cache.h"
#include "gpulab/timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

namespace matmul_grading {

using gpulab::fixed;

namespace {

// One implementation's row of the study: its CSV name, what the table calls it, and its last measured
// time, from which the next size's time is predicted (N^3) to decide whether to run it at all.
struct Contender {
    std::string id, label;
    double last_ms = 0;
    int last_n = 0;
    double predicted_ms(int n) const { return last_n ? last_ms * std::pow(double(n) / last_n, 3) : 0; }
};

struct Cell {
    double ms = 0;
    std::string status = "measured";  // or "skipped: ..." / "wrong: ..."
};

double tflops(int n, double ms) { return 2.0 * double(n) * n * n / (ms * 1e9); }

std::string skipped_after(const Contender& c, int n, double budget_s) {
    return "skipped: would take about " + fixed(c.predicted_ms(n) / 1e3, 1) + " s a run (N^3 from " +
           fixed(c.last_ms / 1e3, 2) + " s at N = " + std::to_string(c.last_n) + "; the study allows " +
           fixed(budget_s, 1) + " s)";
}

// Times a CPU multiply: once when it is slow, else the best of as many runs as fit in about 0.2 s.
double time_cpu(const std::function<void()>& run, double predicted_ms) {
    const int runs = predicted_ms > 100 ? 1 : predicted_ms > 5 ? 3 : 7;
    double best = 1e300;
    for (int r = 0; r < runs; ++r) {
        const auto start = std::chrono::steady_clock::now();
        run();
        best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

// The study's settings (lab.json "study").
struct StudySpec {
    double cpu_budget_s, gpu_budget_s, round_budget_s;
    int spot_checks;
    gpulab::TimingOptions options;
    std::vector<int> sizes;
};

StudySpec study_spec() {
    const gpulab::Json& spec = section("study");
    StudySpec out{spec.at("cpu_budget_s"), spec.at("gpu_budget_s"), spec.at("round_budget_s"), spec.at("spot_checks"),
                  {}, spec.at("sizes").get<std::vector<int>>()};
    out.options.warmup = 0;  // every row has just run once for its check
    out.options.samples = spec.at("samples");
    return out;
}

using Row = std::map<std::string, Cell>;
using Table = std::map<int, Row>;
const char* const kGpuIds[] = {"naive", "naive_bt", "tiled", "transpose", "tiled_bt", "cublas"};

Contender& find(std::vector<Contender>& contenders, const std::string& id) {
    for (Contender& c : contenders)
        if (c.id == id) return c;
    throw std::logic_error("no contender " + id);
}

// The CPU rows measure this machine, not the submission: measured once per machine and kept (report_cache.h), shown
// again on every later grading here. None where nothing is kept, or what is kept is not what this version writes.
std::optional<gpulab::Json> kept_cpu_rows(const gpulab::Json& key, const std::vector<int>& sizes) {
    std::optional<gpulab::Json> kept = gpulab::cached_report("matmul-study-cpu-rows", key);
    for (int n : sizes)
        for (const char* id : {"cpu_serial", "cpu_serial_bt", "cpu_openmp"}) {
            if (!kept) return kept;
            const std::string size = std::to_string(n);
            if (!(kept->contains(size) && kept->at(size).contains(id) &&
                  kept->at(size).at(id).value("ms", gpulab::Json()).is_number() &&
                  kept->at(size).at(id).value("status", gpulab::Json()).is_string()))
                kept.reset();
        }
    return kept;
}

// The CPU rows at one size, checked against the oracle's spot checks like the GPU's; "" or what is wrong with the
// study's own loops (a grader error).
std::string measure_cpu_rows(int n, const Inputs& in, gpulab::Rng& rng, const StudySpec& spec,
                             const std::optional<gpulab::Json>& kept, std::vector<Contender>& contenders, Row& row) {
    const Shape s{n, n, n};
    std::vector<float> c_host(std::size_t(n) * n);
    const std::map<std::string, std::function<void()>> cpu_runs{
        {"cpu_serial", [&] { matmul_cpu::serial(in.a, in.b, c_host, n); }},
        {"cpu_serial_bt", [&] { matmul_cpu::serial_bt(in.a, in.bt, c_host, n); }},
        {"cpu_openmp", [&] { matmul_cpu::openmp(in.a, in.b, c_host, n); }}};
    for (auto& [id, run] : cpu_runs) {
        if (kept) {
            const gpulab::Json& cell = kept->at(std::to_string(n)).at(id);
            row[id] = {cell.at("ms").get<double>(), cell.at("status").get<std::string>()};
            continue;
        }
        Contender& c = find(contenders, id);
        if (c.predicted_ms(n) > spec.cpu_budget_s * 1e3) {
            row[id].status = skipped_after(c, n, spec.cpu_budget_s);
            continue;
        }
        row[id].ms = time_cpu(run, c.predicted_ms(n));
        c.last_ms = row[id].ms, c.last_n = n;
        if (const std::string wrong = spot_check(in, c_host, s, spec.spot_checks, rng); !wrong.empty())
            return "the study's own CPU loop " + id + " is wrong: " + wrong;
    }
    return "";
}

// The GPU rows at one size, interleaved in one set of rounds so that they share the GPU's clocks; each checked once
// before any is timed. Sets `gpu_stopped` where a student kernel broke the GPU context (no GPU rows after it).
void measure_gpu_rows(int n, const Inputs& in, gpulab::Rng& rng, const StudySpec& spec, CublasSgemm* cublas,
                      const std::string& cublas_missing, std::vector<Contender>& contenders, Row& row,
                      std::string& gpu_stopped) {
    const Shape s{n, n, n};
    gpulab::GuardedDeviceArray<float> a(in.a.size()), b(in.b.size()), bt_given(in.bt.size()), bt_made(in.bt.size());
    a.upload(in.a);
    b.upload(in.b);
    bt_given.upload(in.bt);
    std::map<std::string, std::unique_ptr<gpulab::GuardedDeviceArray<float>>> out;
    std::map<std::string, std::function<void()>> gpu_runs;
    const auto product = [&](const std::string& id, MatmulLaunch launch, const float* b_operand) {
        out[id] = std::make_unique<gpulab::GuardedDeviceArray<float>>(std::size_t(n) * n);
        float* c = out[id]->data();
        gpu_runs[id] = [=, &a] { launch(a.data(), b_operand, c, n, n, n); };
    };
    product("naive", student().naive, b.data());
    product("naive_bt", student().naive_bt, bt_given.data());
    product("tiled", student().tiled, b.data());
    product("tiled_bt", student().tiled_bt, bt_given.data());
    gpu_runs["transpose"] = [&] { student().transpose(b.data(), bt_made.data(), n, n); };
    if (cublas) {
        out["cublas"] = std::make_unique<gpulab::GuardedDeviceArray<float>>(std::size_t(n) * n);
        gpu_runs["cublas"] = [&, c = out["cublas"]->data()] { cublas->multiply(a.data(), b.data(), c, n, n, n); };
    } else {
        row["cublas"].status = "skipped: " + cublas_missing;
    }
    std::vector<std::string> ids;
    std::vector<std::function<void()>> launches;
    try {
        // Each once, checked, before any is timed: a wrong kernel's time means nothing.
        for (auto& [id, run] : gpu_runs) {
            Contender& c = find(contenders, id);
            if (c.predicted_ms(n) > spec.gpu_budget_s * 1e3) {
                row[id].status = skipped_after(c, n, spec.gpu_budget_s);
                continue;
            }
            std::string wrong;
            try {
                run();
                gpulab::check_student_launch(id + " at N = " + std::to_string(n));
                if (id == "transpose") {
                    if (bt_made.download() != in.bt) wrong = "Bt is not the transpose of B";
                } else {
                    wrong = spot_check_device(in, out[id]->data(), s, spec.spot_checks, rng);
                }
            } catch (const gpulab::CudaError& e) {
                if (gpulab::is_sticky_cuda_error(e.status())) throw;
                wrong = e.what();
            }
            if (!wrong.empty()) {
                row[id].status = "wrong: " + wrong;
                continue;
            }
            ids.push_back(id);
            launches.push_back(run);
        }
        // As many rounds as fit in the size's budget, between 3 and `samples`: at N = 4096 one round of the
        // six rows takes about 90 ms on an H100, and the median of 3 is a fine figure for a report.
        double round_ms = 0;
        for (const std::string& id : ids) round_ms += find(contenders, id).predicted_ms(n);
        gpulab::TimingOptions round_options = spec.options;
        if (round_ms > 0)
            round_options.samples = std::clamp(int(spec.round_budget_s * 1e3 / round_ms), std::min(3, spec.options.samples),
                                               spec.options.samples);
        const std::vector<gpulab::Samples> samples = gpulab::time_interleaved(launches, round_options);
        // A time below what the FP32 peak allows is no measurement of the work (a launch that remembers
        // its answer, say): it is shown as wrong, never as a figure.
        const double floor_ms = fp32_peak_tflops() > 0 ? 2.0 * s.multiply_adds() / (fp32_peak_tflops() * 1e9) : 0;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            row[ids[i]].ms = samples[i].median();
            find(contenders, ids[i]).last_ms = row[ids[i]].ms, find(contenders, ids[i]).last_n = n;
            if (ids[i] != "transpose" && row[ids[i]].ms < floor_ms)
                row[ids[i]].status = "wrong: faster than this GPU's FP32 peak, so it did not compute the product";
        }
    } catch (const gpulab::CudaError& e) {
        if (!gpulab::is_sticky_cuda_error(e.status())) throw;
        gpu_stopped = std::string("wrong: a kernel broke the GPU context at N = ") + std::to_string(n) + ": " + e.what();
        for (const char* id : kGpuIds)
            if (row[id].status == "measured" && row[id].ms == 0) row[id].status = gpu_stopped;
    }
}

// The CSV the plot is drawn from (written to csv_path), and the table for the log, returned.
std::string write_study(const Table& table, const std::vector<Contender>& contenders, const std::string& csv_path) {
    const std::vector<std::string> order{"cpu_serial", "cpu_serial_bt", "cpu_openmp", "naive", "naive_bt", "tiled",
                                         "transpose", "tiled_bt", "tiled_bt_with_transpose", "cublas"};
    std::ofstream csv(csv_path);
    csv << "n,implementation,ms,tflops,status\n";
    std::ostringstream text;
    text << "      N";
    for (const std::string& id : order) {
        std::string label = id == "tiled_bt_with_transpose" ? "Bt+transpose" : id;
        for (const Contender& c : contenders)
            if (c.id == id) label = c.label;
        char cell[32];
        std::snprintf(cell, sizeof cell, " %12.12s", label.c_str());
        text << cell;
    }
    text << "   (ms; '-' skipped, 'x' wrong; TFLOP/s in the CSV)\n";
    std::map<std::string, std::string> reasons;
    for (const auto& [n, row] : table) {
        char head[16];
        std::snprintf(head, sizeof head, "%7d", n);
        text << head;
        for (const std::string& id : order) {
            const auto found = row.find(id);
            const Cell cell = found == row.end() ? Cell{} : found->second;
            char value[32];
            if (cell.status == "measured") {
                // The transpose multiplies nothing: its row has a time and no TFLOP/s.
                csv << n << "," << id << "," << cell.ms << ",";
                if (id != "transpose") csv << tflops(n, cell.ms);
                csv << ",measured\n";
                std::snprintf(value, sizeof value, " %12.4g", cell.ms);
            } else {
                std::string quoted = cell.status;
                for (char& ch : quoted)
                    if (ch == ',' || ch == '\n') ch = ';';
                csv << n << "," << id << ",,," << quoted << "\n";
                std::snprintf(value, sizeof value, " %12s", cell.status.rfind("wrong", 0) == 0 ? "x" : "-");
                if (!reasons.count(id)) reasons[id] = "N = " + std::to_string(n) + ": " + cell.status;
            }
            text << value;
        }
        text << "\n";
    }
    for (const auto& [id, why] : reasons) text << "  " << id << ", first left out at " << why << "\n";
    return text.str();
}

}  // namespace

void report_comparison_study() {
    GPULAB_REQUIRE_GPU();
    const StudySpec spec = study_spec();
    std::vector<Contender> contenders{
        {"cpu_serial", "CPU serial"},
        {"cpu_serial_bt", "serial Bt"},
        {"cpu_openmp", "OpenMP x" + std::to_string(matmul_cpu::openmp_threads())},
        {"naive", "naive"},
        {"naive_bt", "naive Bt"},
        {"tiled", "tiled"},
        {"transpose", "transpose"},
        {"tiled_bt", "tiled Bt"},
        {"cublas", "cuBLAS"}};
    std::unique_ptr<CublasSgemm> cublas;
    std::string cublas_missing;
    try {
        cublas = std::make_unique<CublasSgemm>();
    } catch (const std::exception& e) {
        cublas_missing = e.what();
    }
    const gpulab::Json cpu_key{{"host", gpulab::host_cpu_key()}, {"sizes", section("study").at("sizes")},
                               {"cpu_budget_s", spec.cpu_budget_s}, {"loops", "serial, serial_bt, openmp: v1"}};
    const std::optional<gpulab::Json> cpu_kept = kept_cpu_rows(cpu_key, spec.sizes);
    gpulab::Json cpu_measured = gpulab::Json::object();

    Table table;
    std::string gpu_stopped;  // set when a student kernel broke the GPU context: no GPU rows after it
    for (int n : spec.sizes) {
        auto rng = gpulab::Rng::for_current_test();
        std::optional<gpulab::PhaseClock> phase(std::in_place, "N=" + std::to_string(n) + " inputs");
        const Inputs in = random_inputs(rng, Shape{n, n, n});
        phase.emplace("N=" + std::to_string(n) + " CPU rows");
        Row& row = table[n];
        if (const std::string wrong = measure_cpu_rows(n, in, rng, spec, cpu_kept, contenders, row); !wrong.empty())
            return gpulab::fail_as_grader_error(wrong);
        for (const char* id : {"cpu_serial", "cpu_serial_bt", "cpu_openmp"})
            cpu_measured[std::to_string(n)][id] = {{"ms", row[id].ms}, {"status", row[id].status}};
        if (!gpu_stopped.empty()) {
            for (const char* id : kGpuIds) row[id].status = gpu_stopped;
            continue;
        }
        phase.emplace("N=" + std::to_string(n) + " GPU rows");
        measure_gpu_rows(n, in, rng, spec, cublas.get(), cublas_missing, contenders, row, gpu_stopped);
        // The transpose is part of the price of multiplying on Bt: shown alone and added in.
        if (row.count("transpose") && row["transpose"].status == "measured" && row.count("tiled_bt") &&
            row["tiled_bt"].status == "measured")
            row["tiled_bt_with_transpose"].ms = row["transpose"].ms + row["tiled_bt"].ms;
        else
            row["tiled_bt_with_transpose"].status = "skipped: needs both the transpose and tiled on Bt";
    }
    if (!cpu_kept) gpulab::store_report("matmul-study-cpu-rows", cpu_key, cpu_measured);

    const std::string dir = gpulab::artifact_dir();
    const std::string csv_path = dir + "/matmul_study.csv", png_path = dir + "/matmul_study.png";
    const std::string text = write_study(table, contenders, csv_path);
    const std::string title = gpulab::device_facts().name + ", CUDA " + std::to_string(gpulab::device_facts().runtime_version / 1000) +
                              "; CPU " + std::to_string(matmul_cpu::openmp_threads()) + " threads";
    const gpulab::PlotOutcome plot = gpulab::draw_plot("matmul-study", csv_path, {"--out", png_path, "--title", title});
    std::cout << "[lab 07] comparison study: C = A * B for N x N floats (median of 3 to " << spec.options.samples
              << " GPU runs, best of up to 7 CPU runs" << (cpu_kept ? ", the CPU's as first measured on this machine" : "")
              << ")\n"
              << text << "[lab 07] written: " << csv_path << "\n[lab 07] "
              << (plot.drawn_or_queued() ? "plot (log-log): " + png_path : "plot skipped: " + plot.skipped_because) << "\n";
    testing::Test::RecordProperty("study_table", text);
    testing::Test::RecordProperty("artifacts", dir);
    const Cell& big = table.rbegin()->second["tiled"];
    gpulab::record_figure((big.status == "measured" ? "tiled " + fixed(tflops(table.rbegin()->first, big.ms), 2) +
                                                          " TFLOP/s at N = " + std::to_string(table.rbegin()->first)
                                                    : std::string("tiled not measured at the largest N")) +
                              "; " + (plot.drawn_or_queued() ? "plot " + png_path : "table in " + csv_path),
                          "report only");
}

}  // namespace matmul_grading
