#include "reports.h"

#include "gpulab/cpu_mode_unsupported.h"

#include "lab_status.h"
#include "gpulab/device_facts.h"
#include "gpulab/plot.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <tuple>

namespace fs = std::filesystem;
using nlohmann::json;

namespace gpulab::feedback {
namespace {

constexpr std::size_t kMaxMessageLines = 120;  // of a compiler message or a failure, shown in full up to this

// 67, 40.5, 33.33: points as a person writes them.
std::string points_text(double value) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(2) << value;
    std::string text = out.str();
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
    return text == "-0" ? "0" : text;
}

std::string out_of(double points, double max_points) { return points_text(points) + "/" + points_text(max_points); }

bool same(double a, double b) { return std::fabs(a - b) < 1e-6; }

std::string string_of(const json& object, const char* key) {
    if (!object.is_object() || !object.contains(key) || !object[key].is_string()) return "";
    return object[key].get<std::string>();
}

double number_of(const json& object, const char* key, double fallback = 0) {
    if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return fallback;
    return object[key].get<double>();
}

std::vector<std::string> strings_of(const json& object, const char* key) {
    std::vector<std::string> out;
    if (!object.is_object() || !object.contains(key) || !object[key].is_array()) return out;
    for (const json& item : object[key])
        if (item.is_string()) out.push_back(item.get<std::string>());
    return out;
}

const json& tests_of(const GradedLab& lab) {
    static const json none = json::array();
    if (lab.result.is_object() && lab.result.contains("tests") && lab.result["tests"].is_array()) return lab.result["tests"];
    return none;
}

// A long compiler message keeps its first lines: the first error is the one to fix.
std::string clipped(const std::string& text) {
    std::size_t lines = 0, at = 0;
    while (at < text.size()) {
        const std::size_t newline = text.find('\n', at);
        if (++lines > kMaxMessageLines) {
            std::size_t rest = 0;
            for (std::size_t i = at; i < text.size(); ++i) rest += text[i] == '\n';
            return text.substr(0, at) + "... (" + std::to_string(rest + 1) + " more lines)\n";
        }
        if (newline == std::string::npos) break;
        at = newline + 1;
    }
    return text;
}

std::string trimmed(const std::string& text) {
    const std::size_t end = text.find_last_not_of(" \n\r\t");
    return end == std::string::npos ? "" : text.substr(0, end + 1);
}

bool is_status(const GradedLab& lab, const char* word) { return lab.status == word; }

// A test's table for a person: its "report_table" property (Report.GpuProfile's counters, Report.AccessAnalysis's
// exact access figures), "" where it recorded none.
std::string report_table_of(const json& test) {
    if (!test.is_object() || !test.contains("properties")) return "";
    return trimmed(string_of(test["properties"], "report_table"));
}

// A report keeps the columns its test aligned; its prose lines (the diagnoses under the table, the legend) are
// wrapped at the table's width, their continuations indented, so that a sentence never runs off to the side.
// A line with a run of three spaces after its indent is a table row and is never wrapped.
std::string reflowed(const std::string& text) {
    std::vector<std::string> lines;
    for (std::size_t at = 0; at <= text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        lines.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    const auto indent_of = [](const std::string& line) { return std::min(line.find_first_not_of(' '), line.size()); };
    const auto is_row = [&](const std::string& line) { return line.find("   ", indent_of(line)) != std::string::npos; };
    std::size_t width = 100;
    for (const std::string& line : lines)
        if (is_row(line)) width = std::max(width, line.size());
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        if (i) out += '\n';
        if (line.size() <= width || is_row(line)) {
            out += line;
            continue;
        }
        const std::string more(indent_of(line) + 2, ' ');
        std::string rest = line;
        while (rest.size() > width) {
            std::size_t cut = rest.rfind(' ', width);
            if (cut == std::string::npos || cut <= indent_of(rest)) cut = rest.find(' ', width);
            if (cut == std::string::npos) break;
            out += rest.substr(0, cut) + '\n';
            rest = more + rest.substr(cut + 1);
        }
        out += rest;
    }
    return out;
}

// How a test fared, for the table's colour and Gradescope's status.
enum class Outcome { passed, lost_points, not_run };
Outcome outcome_of(const json& test) {
    if (const std::string v = string_of(test, "verdict"); v == "not run" || v.rfind("left out", 0) == 0) return Outcome::not_run;
    const double points = number_of(test, "points"), max_points = number_of(test, "max_points");
    if (number_of(test, "failed") > 0 || points < max_points - 1e-9) return Outcome::lost_points;
    return Outcome::passed;
}

// A name safe as one path component: letters, digits, '.', '-', '_'; nothing that climbs out.
std::string safe_name(const std::string& name) {
    std::string out;
    for (const char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
    if (out.empty() || out == "." || out == "..") out = "_" + out;
    return out;
}

bool is_picture(const fs::path& path) {
    std::string ending = path.extension().string();
    std::transform(ending.begin(), ending.end(), ending.begin(), [](unsigned char c) { return std::tolower(c); });
    return ending == ".png" || ending == ".jpg" || ending == ".jpeg" || ending == ".gif" || ending == ".svg";
}

std::ofstream open_for_writing(const fs::path& path) {
    std::error_code ignored;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ignored);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
    return out;
}

void finish(std::ofstream& out, const fs::path& path) {
    out.close();
    if (!out) throw std::runtime_error("writing " + path.string() + " failed (disk full?)");
}

// ---- one document, two renderings ---------------------------------------------------------------------
// The feedback's content is written once, against this interface; Markdown and HTML render it, so the two
// files can never say different things.

struct Cell {
    std::string text;
};
enum class RowKind { plain, passed, lost_points, not_run, total };

class Document {
public:
    virtual ~Document() = default;
    virtual void heading(int level, const std::string& text) = 0;
    virtual void paragraph(const std::string& text) = 0;
    virtual void emphasis_paragraph(const std::string& text) = 0;  // a line that must not be missed
    virtual void preformatted(const std::string& text) = 0;        // compiler messages, failure reports
    virtual void report_table(const std::string& text) = 0;        // a test's table: columns kept, never wrapped
    virtual void bullets(const std::vector<std::string>& items) = 0;
    virtual void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                       const std::vector<RowKind>& kinds) = 0;
    // `wide`: a picture a person reads at full width (a report's figure), not one of a row of thumbnails.
    virtual void picture(const std::string& relative_path, const std::string& caption, bool wide) = 0;
    virtual void small(const std::string& text) = 0;  // where a grade came from
    // Files to open, each (text, a path relative to the document).
    virtual void links(const std::vector<std::pair<std::string, std::string>>& items) = 0;
    // A line of the student's source that carries a measured cause: `label` (the cause, and the test that measured
    // it), `quoted` ("gaussian_blur.cu:67  tile[tx][ty][c] = src[c];") and that line's own figure.
    virtual void cause_line(const std::string& label, const std::string& quoted, const std::string& figure) = 0;
};

// Markdown (CommonMark with GitHub's tables): text escaped so that a '<', '|' or '*' from a run shows as
// itself; messages in fences longer than any run of backticks inside them.
class MarkdownDocument : public Document {
public:
    explicit MarkdownDocument(std::ostream& out) : out_(out) {}

    static std::string escape(const std::string& text) {
        std::string out;
        for (const char c : text) {
            if (c == '\n' || c == '\r') {
                out += ' ';
                continue;
            }
            if (std::string_view("\\`*_[]<>|#!&").find(c) != std::string_view::npos) out += '\\';
            out += c;
        }
        return out;
    }

    static std::string fenced(const std::string& text) {
        std::size_t longest = 0, run = 0;
        for (const char c : text) {
            run = c == '`' ? run + 1 : 0;
            longest = std::max(longest, run);
        }
        const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
        return fence + "text\n" + trimmed(text) + "\n" + fence + "\n";
    }

    void heading(int level, const std::string& text) override { out_ << std::string(level, '#') << " " << escape(text) << "\n\n"; }
    void paragraph(const std::string& text) override { out_ << escape(text) << "\n\n"; }
    void emphasis_paragraph(const std::string& text) override { out_ << "**" << escape(text) << "**\n\n"; }
    void preformatted(const std::string& text) override { out_ << fenced(text) << "\n"; }
    void report_table(const std::string& text) override { out_ << fenced(text) << "\n"; }
    void bullets(const std::vector<std::string>& items) override {
        for (const std::string& item : items) out_ << "- " << escape(item) << "\n";
        out_ << "\n";
    }
    void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
               const std::vector<RowKind>& kinds) override {
        out_ << "|";
        for (const std::string& h : header) out_ << " " << escape(h) << " |";
        out_ << "\n|";
        for (std::size_t i = 0; i < header.size(); ++i) out_ << (i == 1 ? " ---: |" : " --- |");
        out_ << "\n";
        for (std::size_t r = 0; r < rows.size(); ++r) {
            out_ << "|";
            for (const std::string& cell : rows[r]) {
                const bool bold = kinds[r] == RowKind::total && !cell.empty();
                out_ << " " << (bold ? "**" : "") << escape(cell) << (bold ? "**" : "") << " |";
            }
            out_ << "\n";
        }
        out_ << "\n";
    }
    void picture(const std::string& relative_path, const std::string& caption, bool) override {
        out_ << "![" << escape(caption) << "](<" << relative_path << ">)\n\n";
    }
    void small(const std::string& text) override { out_ << "*" << escape(text) << "*\n\n"; }
    void links(const std::vector<std::pair<std::string, std::string>>& items) override {
        for (const auto& [text, path] : items) out_ << "- [" << escape(text) << "](<" << path << ">)\n";
        out_ << "\n";
    }
    void cause_line(const std::string& label, const std::string& quoted, const std::string& figure) override {
        std::string code = quoted;
        for (char& c : code)
            if (c == '`' || c == '\n') c = '\'';  // one line of code in one span
        out_ << "- **" << escape(label) << "**: `` " << code << " ``: " << escape(figure) << "\n\n";
    }

private:
    std::ostream& out_;
};

std::string html_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

// Paths in src= are percent-encoded where a character could end or change the attribute.
std::string url_path(const std::string& path) {
    std::string out;
    for (const unsigned char c : path) {
        if (std::isalnum(c) || std::string_view("/._-").find(char(c)) != std::string_view::npos) {
            out += char(c);
        } else {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", c);
            out += hex;
        }
    }
    return out;
}

// One HTML file: inline CSS, no script, no outside resource; colours survive printing, rows and pictures
// do not split across pages, long lines wrap instead of running off the paper.
const char* const kCss = R"(
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1b1b1b;
         max-width: 62rem; margin: 2rem auto; padding: 0 1.5rem; line-height: 1.45; }
  h1 { font-size: 1.6rem; border-bottom: 2px solid #444; padding-bottom: .3rem; }
  h2 { font-size: 1.3rem; margin-top: 2.2rem; border-bottom: 1px solid #bbb; padding-bottom: .2rem; }
  h3 { font-size: 1.08rem; margin-top: 1.4rem; }
  h4 { font-size: .98rem; margin: 1rem 0 .3rem; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
  table { border-collapse: collapse; margin: .6rem 0 1rem; font-size: .9rem; width: 100%; }
  th, td { border: 1px solid #c8c8c8; padding: .28rem .5rem; text-align: left; vertical-align: top; }
  th { background: #eceff3; }
  td:nth-child(2), td:nth-child(3) { white-space: nowrap; }
  td:nth-child(2) { text-align: right; }
  tr.passed td:first-child { border-left: 5px solid #2e7d32; }
  tr.lost_points td:first-child { border-left: 5px solid #c62828; }
  tr.lost_points { background: #fdf0f0; }
  tr.not_run td:first-child { border-left: 5px solid #b08900; }
  tr.not_run { color: #6b5d00; }
  tr.total td { font-weight: bold; background: #f4f4f4; }
  pre { background: #f6f8fa; border: 1px solid #d7dbe0; padding: .6rem .8rem; font-size: .82rem;
        white-space: pre-wrap; overflow-wrap: anywhere; }
  /* A report's table and picture may be wider than the text: centred on it, up to the window's width, the
     table scrolling sideways only where the window is narrower than its rows. */
  pre.report { white-space: pre; overflow-x: auto; overflow-wrap: normal; font-size: .7rem; line-height: 1.35;
               width: max-content; max-width: 94vw; box-sizing: border-box; position: relative; left: 50%;
               transform: translateX(-50%); }
  p.alert { font-weight: bold; color: #8b1a1a; }
  div.cause { margin: .5rem 0 .8rem; padding: .4rem .7rem; border-left: 4px solid #b3541e; background: #fbf4ee; }
  div.cause .label { display: block; font-size: .85rem; font-weight: bold; color: #7a3510; }
  div.cause code.line { display: block; margin: .25rem 0; padding: .3rem .5rem; background: #fff; border: 1px solid #e0c9b8;
                        font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .85rem; white-space: pre-wrap;
                        overflow-wrap: anywhere; }
  div.cause .figure { font-size: .85rem; color: #333; }
  p.small { font-size: .82rem; color: #555; }
  figure { display: inline-block; width: 48%; margin: .5rem 1% .5rem 0; vertical-align: top;
           page-break-inside: avoid; break-inside: avoid; }
  figure img { max-width: 100%; border: 1px solid #ddd; }
  figure.wide { display: block; width: 94vw; max-width: 100rem; margin: .5rem 0 1rem; position: relative; left: 50%;
                transform: translateX(-50%); text-align: center; }
  figcaption { font-size: .82rem; color: #555; }
  @media print {
    body { margin: 0; max-width: none; }
    * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
    tr, pre { page-break-inside: avoid; break-inside: avoid; }
    pre.report { white-space: pre-wrap; overflow-x: visible; font-size: .62rem; width: auto; max-width: none; left: 0;
                 transform: none; }
    figure.wide { width: 100%; left: 0; transform: none; }
    h2 { page-break-after: avoid; break-after: avoid; }
  }
)";

// A picture's bytes as a data: URI, so that a page holds its pictures itself; "" where the file cannot be read.
std::string data_uri(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return "";
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string encoded(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                                  reinterpret_cast<const unsigned char*>(bytes.data()), int(bytes.size()));
    encoded.resize(std::size_t(std::max(n, 0)));
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    const char* type = ext == ".png" ? "image/png" : ext == ".svg" ? "image/svg+xml" : ext == ".gif" ? "image/gif" : "image/jpeg";
    return std::string("data:") + type + ";base64," + encoded;
}

class HtmlDocument : public Document {
public:
    // `inline_from`: a page that holds its pictures (a student's report page, read on a laptop, sent on): each
    // picture's path, relative to this folder, is read and written into the page. Empty: pictures are linked.
    HtmlDocument(std::ostream& out, const std::string& title, fs::path inline_from = {})
        : out_(out), inline_from_(std::move(inline_from)) {
        out_ << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
             << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
             << "<title>" << html_escape(title) << "</title>\n<style>" << kCss << "</style>\n</head>\n<body>\n";
    }
    ~HtmlDocument() override { out_ << "</body>\n</html>\n"; }

    void heading(int level, const std::string& text) override {
        out_ << "<h" << level << ">" << html_escape(text) << "</h" << level << ">\n";
    }
    void paragraph(const std::string& text) override { out_ << "<p>" << html_escape(text) << "</p>\n"; }
    void emphasis_paragraph(const std::string& text) override { out_ << "<p class=\"alert\">" << html_escape(text) << "</p>\n"; }
    void preformatted(const std::string& text) override { out_ << "<pre>" << html_escape(trimmed(text)) << "</pre>\n"; }
    void report_table(const std::string& text) override {
        out_ << "<pre class=\"report\">" << html_escape(trimmed(text)) << "</pre>\n";
    }
    void bullets(const std::vector<std::string>& items) override {
        out_ << "<ul>\n";
        for (const std::string& item : items) out_ << "  <li>" << html_escape(item) << "</li>\n";
        out_ << "</ul>\n";
    }
    void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
               const std::vector<RowKind>& kinds) override {
        static const char* const kClass[] = {"plain", "passed", "lost_points", "not_run", "total"};
        out_ << "<table>\n<thead><tr>";
        for (const std::string& h : header) out_ << "<th>" << html_escape(h) << "</th>";
        out_ << "</tr></thead>\n<tbody>\n";
        for (std::size_t r = 0; r < rows.size(); ++r) {
            out_ << "<tr class=\"" << kClass[int(kinds[r])] << "\">";
            for (const std::string& cell : rows[r]) out_ << "<td>" << html_escape(cell) << "</td>";
            out_ << "</tr>\n";
        }
        out_ << "</tbody>\n</table>\n";
    }
    void picture(const std::string& relative_path, const std::string& caption, bool wide) override {
        std::string src = url_path(relative_path);
        if (!inline_from_.empty())
            if (const std::string uri = data_uri(inline_from_ / relative_path); !uri.empty()) src = uri;
        out_ << (wide ? "<figure class=\"wide\">" : "<figure>") << "<img src=\"" << html_escape(src) << "\" alt=\"" << html_escape(caption)
             << "\"><figcaption>" << html_escape(caption) << "</figcaption></figure>\n";
    }
    void small(const std::string& text) override { out_ << "<p class=\"small\">" << html_escape(text) << "</p>\n"; }
    void links(const std::vector<std::pair<std::string, std::string>>& items) override {
        out_ << "<ul class=\"links\">\n";
        for (const auto& [text, path] : items)
            out_ << "  <li><a href=\"" << html_escape(url_path(path)) << "\">" << html_escape(text) << "</a></li>\n";
        out_ << "</ul>\n";
    }
    void cause_line(const std::string& label, const std::string& quoted, const std::string& figure) override {
        out_ << "<div class=\"cause\"><span class=\"label\">" << html_escape(label) << "</span>"
             << "<code class=\"line\">" << html_escape(quoted) << "</code><span class=\"figure\">" << html_escape(figure)
             << "</span></div>\n";
    }

private:
    std::ostream& out_;
    fs::path inline_from_;
};

// ---- what a lab's status means to a student ------------------------------------------------------------

void explain_status(Document& doc, const GradedLab& lab) {
    const AdmissionOfLab admission = admission_of(lab.result);
    const std::string& reason = admission.reason;  // the compiler's words, what was refused, what was forged
    if (is_status(lab, status::did_not_build)) {
        if (admission.verdict == "cpu_mode_cannot_build") {
            doc.emphasis_paragraph("CPU execution mode cannot build your code: it uses a CUDA feature this mode does not "
                                   "run (named below). The code may well be right; it must be graded on a machine with a GPU.");
        } else {
            doc.emphasis_paragraph("Your code did not compile, so no test could run and the lab scores 0. The compiler said:");
        }
        doc.preformatted(reason.empty() ? "(the build left no message)" : clipped(reason));
    } else if (is_status(lab, status::empty)) {
        doc.emphasis_paragraph("Your submission held none of this lab's files, so nothing could be graded and the lab "
                               "scores 0. Check the file names against the lab's starter folder.");
    } else if (is_status(lab, status::refused)) {
        doc.emphasis_paragraph("Not run: your code uses something these labs do not allow, so the lab scores 0.");
        if (!reason.empty()) doc.preformatted(reason);
    } else if (is_status(lab, status::tampered)) {
        doc.emphasis_paragraph("The results of this run cannot count: something changed what the grader records, so "
                               "the lab scores 0.");
        if (!reason.empty()) doc.preformatted(reason);
    } else if (is_status(lab, status::crashed)) {
        doc.emphasis_paragraph("Your code took the grader down (a crash, a hang or an exhausted GPU): the tests that "
                               "did not finish score 0. What went wrong below says what is known.");
    } else if (is_status(lab, status::grader_error)) {
        doc.emphasis_paragraph("The grading machinery failed on this lab, not your code: your instructor will grade it again.");
    } else if (!is_status(lab, status::graded)) {
        doc.emphasis_paragraph("Status: " + lab.status + ".");
    }
    const double not_run = number_of(lab.result, "points_not_run");
    if (not_run > 0) {
        doc.paragraph(points_text(not_run) + " of the " + points_text(lab.max_points) +
                      " points (speed and technique) need a real GPU and were not run" +
                      (lab.mode == "cpu" ? ": this lab was graded in CPU execution mode, which checks correctness only." : "."));
    }
}

// The driver as the database keeps it (cudaDriverGetVersion's 13000), as people write it (13.0).
std::string driver_text(const std::string& stored) {
    if (stored.empty() || stored.find_first_not_of("0123456789") != std::string::npos) return stored;
    return gpulab::cuda_version_text(std::stol(stored));
}

std::string provenance(const GradedLab& lab) {
    std::vector<std::string> parts;
    if (lab.mode == "cpu") parts.push_back("graded in CPU execution mode");
    else if (!lab.gpu_name.empty()) parts.push_back("graded on " + lab.gpu_name + (lab.driver_version.empty() ? "" : " (CUDA driver " + driver_text(lab.driver_version) + ")"));
    if (!lab.grader_version.empty()) parts.push_back("grader " + lab.grader_version);
    if (!lab.seed.empty()) parts.push_back("seed " + lab.seed + " (GPULAB_SEED=" + lab.seed + " reproduces the inputs)");
    std::string out;
    for (const std::string& part : parts) out += (out.empty() ? "" : ", ") + part;
    if (!out.empty()) out[0] = char(std::toupper(static_cast<unsigned char>(out[0])));
    return out.empty() ? "" : out + ".";
}

// A picture as the grader wrote it, and its copy beside the feedback (a path relative to the feedback).
struct Picture {
    std::string source;
    std::string shown;
};

// A lab's pictures among its artifacts, each (as summary.json lists it, where it is: relative to artifacts_dir).
std::vector<std::pair<std::string, fs::path>> picture_artifacts(const GradedLab& lab) {
    std::vector<std::pair<std::string, fs::path>> found;
    for (const std::string& artifact : strings_of(lab.result, "artifacts")) {
        fs::path source = artifact;
        if (!is_picture(source)) continue;
        if (source.is_relative() && !lab.artifacts_dir.empty()) source = fs::path(lab.artifacts_dir) / source;
        found.emplace_back(artifact, source);
    }
    return found;
}

// Copies a lab's pictures next to the feedback.
std::vector<Picture> copy_pictures(const fs::path& dir, const GradedLab& lab, FeedbackFiles& files) {
    std::vector<Picture> copied;
    for (const auto& [artifact, source] : picture_artifacts(lab)) {
        const std::string relative = "pictures/" + safe_name(lab.lab) + "/" + safe_name(source.filename().string());
        std::error_code error;
        fs::create_directories((dir / relative).parent_path(), error);
        if (!error) fs::copy_file(source, dir / relative, fs::copy_options::overwrite_existing, error);
        if (error) {
            files.missing_pictures.push_back(artifact + " (" + error.message() + ")");
            continue;
        }
        copied.push_back({source.string(), relative});
        files.pictures.push_back(relative);
    }
    return copied;
}

// The grader names a picture by where it wrote it, a folder of the grading machine the student never sees:
// name the copy beside the feedback instead.
std::string with_copied_paths(std::string text, const std::vector<Picture>& pictures) {
    for (const Picture& picture : pictures)
        for (std::size_t at = text.find(picture.source); at != std::string::npos; at = text.find(picture.source, at))
            text.replace(at, picture.source.size(), picture.shown);
    return text;
}

// Notes every lab of a submission shares (a stray file is ignored for each lab): said once, above the labs.
std::vector<std::string> notes_of_every_lab(const std::vector<GradedLab>& labs) {
    std::vector<std::string> shared;
    if (labs.size() < 2) return shared;
    for (const std::string& note : labs.front().notes)
        if (std::all_of(labs.begin(), labs.end(), [&](const GradedLab& lab) {
                return std::find(lab.notes.begin(), lab.notes.end(), note) != lab.notes.end();
            }))
            shared.push_back(note);
    return shared;
}

// One entry of what went wrong in a lab, as gpulab-grade ordered them (summary.json's lab "feedback"; the
// runner's scoring.h, Feedback): "fix_first", "failure", "not_counted" or "why_not_counted".
struct WhatWentWrong {
    std::string kind, test;
    std::vector<std::string> text;
};

std::vector<WhatWentWrong> what_went_wrong(const GradedLab& lab) {
    std::vector<WhatWentWrong> entries;
    if (lab.result.is_object() && lab.result.contains("feedback") && lab.result["feedback"].is_array()) {
        for (const json& entry : lab.result["feedback"])
            entries.push_back({string_of(entry, "kind"), string_of(entry, "test"), strings_of(entry, "text")});
        return entries;
    }
    // A summary.json from before the lab's "feedback": each test's details, in the table's order.
    for (const json& test : tests_of(lab))
        if (std::vector<std::string> details = strings_of(test, "details"); !details.empty())
            entries.push_back({"failure", string_of(test, "id"), std::move(details)});
    return entries;
}

// The failures in the order to fix them (each under its test's name, its messages whole), then the tests not
// counted until one passes, a line each, and why, once. `names_only`: the failures by name alone, in that order
// (Gradescope's page, where each test's own output holds its messages: they are not repeated above it).
void write_what_went_wrong(Document& doc, const GradedLab& lab, const std::vector<Picture>& pictures,
                           bool names_only = false) {
    const std::vector<WhatWentWrong> entries = what_went_wrong(lab);
    if (entries.empty()) return;
    doc.heading(3, "What went wrong");
    if (names_only) {
        std::vector<std::string> order;
        for (const WhatWentWrong& entry : entries)
            if (entry.kind == "fix_first" || entry.kind == "failure")
                order.push_back(entry.test + (entry.kind == "fix_first" ? " (fix it first: other tests wait on it)" : ""));
        if (!order.empty()) doc.paragraph("Failed, in the order to fix them (each test's own output below says why):"), doc.bullets(order);
    }
    std::vector<std::string> not_counted;
    for (const WhatWentWrong& entry : entries) {
        if (names_only && (entry.kind == "fix_first" || entry.kind == "failure")) continue;
        if (entry.kind == "not_counted") {
            not_counted.insert(not_counted.end(), entry.text.begin(), entry.text.end());
            continue;
        }
        if (!not_counted.empty()) doc.bullets(not_counted), not_counted.clear();
        if (entry.kind == "why_not_counted") {
            for (const std::string& text : entry.text) doc.paragraph(text);
            continue;
        }
        doc.heading(4, entry.test);
        for (const std::string& text : entry.text) doc.preformatted(clipped(with_copied_paths(text, pictures)));
    }
    if (!not_counted.empty()) doc.bullets(not_counted);
}

// The lines of the student's source that the reports put the measured causes down to (each report test's
// "cause_lines" property: suite -> cause -> [{"line", "figure"}]), the GPU's first: where to look before reading the
// tables. Nothing where no report named a line.
void write_cause_lines(Document& doc, const GradedLab& lab) {
    bool any = false;
    for (const char* report : {"Report.GpuProfile", "Report.AccessAnalysis"})
        for (const json& test : tests_of(lab)) {
            if (string_of(test, "id") != report || !test.contains("properties")) continue;
            const json named = json::parse(string_of(test["properties"], "cause_lines"), nullptr, false);
            if (!named.is_object()) continue;
            for (const auto& [suite, causes] : named.items()) {
                if (!causes.is_object()) continue;
                for (const auto& [cause, lines] : causes.items())
                    for (const json& line : lines) {
                        if (!line.is_object()) continue;
                        if (!any) {
                            doc.heading(3, "Where in your code");
                            doc.paragraph("The lines that carry each measured cause, with each line's own figure "
                                          "(the reports' tables below have the whole launch's):");
                            any = true;
                        }
                        doc.cause_line(cause + " in " + suite + " (" + report + ")", line.value("line", ""),
                                       line.value("figure", ""));
                    }
            }
        }
}

void write_lab(Document& doc, const GradedLab& lab, const std::vector<Picture>& pictures,
               const std::vector<std::string>& said_already) {
    const std::string title = string_of(lab.result, "title");
    doc.heading(2, lab.lab + (title.empty() ? "" : ": " + title) + "  (" + out_of(lab.points, lab.max_points) + ")");
    explain_status(doc, lab);

    std::vector<std::string> notes;
    for (const std::string& note : lab.notes)
        if (std::find(said_already.begin(), said_already.end(), note) == said_already.end()) notes.push_back(note);
    if (!notes.empty()) {
        doc.heading(3, "What your submission brought");
        doc.bullets(notes);
    }

    const json& tests = tests_of(lab);
    if (!tests.empty()) {
        std::vector<std::vector<std::string>> rows;
        std::vector<RowKind> kinds;
        for (const json& test : tests) {
            rows.push_back({string_of(test, "id"), out_of(number_of(test, "points"), number_of(test, "max_points")),
                            string_of(test, "verdict"), with_copied_paths(string_of(test, "measured"), pictures),
                            string_of(test, "threshold")});
            const Outcome outcome = outcome_of(test);
            kinds.push_back(outcome == Outcome::passed ? RowKind::passed
                            : outcome == Outcome::not_run ? RowKind::not_run : RowKind::lost_points);
        }
        rows.push_back({"total", out_of(lab.points, lab.max_points), "", "", ""});
        kinds.push_back(RowKind::total);
        doc.table({"test", "points", "verdict", "measured", "threshold"}, rows, kinds);
    }

    write_what_went_wrong(doc, lab, pictures);
    write_cause_lines(doc, lab);

    // The tables the tests measured (why a kernel is fast or slow), each with the pictures its measured column
    // names (Report.GpuProfile's gpu_profile.png) at full width beneath it; the other pictures follow below.
    std::vector<bool> shown(pictures.size(), false);
    bool any_report = false;
    for (const json& test : tests) {
        const std::string table = report_table_of(test);
        if (table.empty()) continue;
        if (!any_report) doc.heading(3, "Reports"), any_report = true;
        doc.heading(4, string_of(test, "id"));
        doc.report_table(clipped(reflowed(with_copied_paths(table, pictures))));
        const std::string measured = string_of(test, "measured");
        for (std::size_t i = 0; i < pictures.size(); ++i) {
            if (shown[i] || measured.find(pictures[i].source) == std::string::npos) continue;
            doc.picture(pictures[i].shown, fs::path(pictures[i].shown).filename().string(), true);
            shown[i] = true;
        }
    }
    const std::vector<std::string> problems = strings_of(lab.result, "problems");
    if (!problems.empty()) {
        doc.heading(3, "Grader problems (tell your instructor)");
        doc.bullets(problems);
    }
    if (std::find(shown.begin(), shown.end(), false) != shown.end()) {
        doc.heading(3, "Pictures");
        for (std::size_t i = 0; i < pictures.size(); ++i)
            if (!shown[i]) doc.picture(pictures[i].shown, fs::path(pictures[i].shown).filename().string(), false);
    }
    if (!lab.logs.empty()) {
        doc.heading(3, "Logs");
        doc.links(lab.logs);
    }
    const std::string from = provenance(lab);
    if (!from.empty()) doc.small(from);
}

void write_document(Document& doc, const std::string& student, const std::vector<GradedLab>& labs,
                    const std::vector<std::vector<Picture>>& pictures) {
    double points = 0, max_points = 0;
    for (const GradedLab& lab : labs) {
        points += lab.points;
        max_points += lab.max_points;
    }
    doc.heading(1, "Feedback for " + student);
    if (labs.empty()) {
        doc.emphasis_paragraph("No lab of yours has been graded.");
        return;
    }
    std::vector<std::vector<std::string>> rows;
    std::vector<RowKind> kinds;
    for (const GradedLab& lab : labs) {
        rows.push_back({lab.lab, out_of(lab.points, lab.max_points), lab.status});
        kinds.push_back(is_status(lab, status::graded) && same(lab.points, lab.max_points) ? RowKind::passed
                        : is_status(lab, status::graded) ? RowKind::plain : RowKind::lost_points);
    }
    rows.push_back({"total", out_of(points, max_points), ""});
    kinds.push_back(RowKind::total);
    doc.table({"lab", "points", "status"}, rows, kinds);
    const std::vector<std::string> shared = notes_of_every_lab(labs);
    if (!shared.empty()) {
        doc.heading(2, "What your submission brought (every lab)");
        doc.bullets(shared);
    }
    for (std::size_t i = 0; i < labs.size(); ++i) write_lab(doc, labs[i], pictures[i], shared);
}

// ---- Gradescope -------------------------------------------------------------------------------------

std::string gradescope_test_output(const json& test, const GradedLab& lab) {
    std::string out = "**" + MarkdownDocument::escape(string_of(test, "verdict")) + "**";
    if (!is_status(lab, status::graded) && !is_status(lab, status::crashed)) {
        return out + ": not counted, the lab " + MarkdownDocument::escape(lab.status) + " (see the top of this page).";
    }
    const std::string measured = string_of(test, "measured"), threshold = string_of(test, "threshold");
    if (!measured.empty()) out += "\n\nmeasured: " + MarkdownDocument::escape(measured);
    if (!threshold.empty()) out += "\n\nthreshold: " + MarkdownDocument::escape(threshold);
    for (const std::string& detail : strings_of(test, "details")) out += "\n\n" + MarkdownDocument::fenced(clipped(detail));
    const std::string table = report_table_of(test);
    if (!table.empty()) out += "\n\n" + MarkdownDocument::fenced(clipped(reflowed(table)));
    return out;
}

// What Gradescope's page says above a lab's tests. `tests_shown`: each test has its own output (its messages),
// so the list above names the failures in order without repeating them.
std::string gradescope_lab_reason(const GradedLab& lab, bool tests_shown) {
    std::ostringstream out;
    MarkdownDocument doc(out);
    explain_status(doc, lab);
    if (!lab.notes.empty()) {
        doc.paragraph("What your submission brought:");
        doc.bullets(lab.notes);
    }
    write_what_went_wrong(doc, lab, {}, tests_shown);
    return trimmed(out.str());
}

// ---- the overview ---------------------------------------------------------------------------------------

double median_of(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

// ---- status and summaries ---------------------------------------------------------------------------

std::string status_of(const json& lab_entry) {
    const std::string verdict = admission_of(lab_entry).verdict;
    if (verdict == "not_compiled" || verdict == "cpu_mode_cannot_build") return status::did_not_build;
    if (verdict == "refused") return status::refused;
    if (verdict == "tampered") return status::tampered;
    if (!verdict.empty() && verdict != "admitted") return verdict;
    return status::graded;
}

AdmissionOfLab admission_of(const json& lab_entry) {
    AdmissionOfLab a;
    if (!lab_entry.is_object()) return a;
    if (lab_entry.contains("admission") && lab_entry["admission"].is_object()) {
        a.verdict = string_of(lab_entry["admission"], "verdict");
        a.reason = string_of(lab_entry["admission"], "reason");
        return a;
    }
    // A summary.json from before the verdict travelled whole (a class database graded earlier).
    const std::string build_errors = string_of(lab_entry, "build_errors");
    if (lab_entry.contains("compiled") && lab_entry["compiled"] == false) {
        a.verdict = build_errors.find(gpulab::kCpuModeUnsupportedMarker) != std::string::npos ? "cpu_mode_cannot_build"
                                                                                        : "not_compiled";
        a.reason = build_errors;
    } else if (const std::string voided = string_of(lab_entry, "voided"); !voided.empty()) {
        a.verdict = voided;
        a.reason = string_of(lab_entry, "void_reason");
    }
    return a;
}

std::vector<GradedLab> graded_labs_from_summary(const std::string& student, const json& summary,
                                                const std::string& grade_dir) {
    std::vector<GradedLab> out;
    if (!summary.is_object() || !summary.contains("labs") || !summary["labs"].is_array())
        throw std::runtime_error("not a gpulab-grade summary.json: it has no \"labs\" list");
    const json device = summary.value("device", json::object());
    for (const json& entry : summary["labs"]) {
        GradedLab lab;
        lab.student = student;
        lab.lab = string_of(entry, "lab");
        lab.status = status_of(entry);
        lab.points = number_of(entry, "points");
        lab.max_points = number_of(entry, "max_points");
        lab.result = entry;
        lab.artifacts_dir = grade_dir;
        lab.mode = string_of(summary, "mode");
        if (summary.value("gpu", false)) {
            lab.gpu_name = string_of(device, "name");
            if (device.is_object() && device.contains("driver_version")) lab.driver_version = device["driver_version"].dump();
        }
        lab.seed = string_of(summary, "seed");
        out.push_back(std::move(lab));
    }
    return out;
}

// ---- the gradebook ----------------------------------------------------------------------------------------

std::string csv_field(const std::string& text) {
    std::string field = text;
    // A spreadsheet runs a cell that starts with one of these as a formula (CSV injection).
    if (!field.empty() && std::string_view("=+-@\t\r").find(field[0]) != std::string_view::npos) field = "'" + field;
    if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
    std::string quoted = "\"";
    for (const char c : field) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

void write_gradebook_csv(const fs::path& path, const std::vector<std::string>& labs_in_order,
                         const std::vector<GradedLab>& results) {
    std::map<std::string, std::map<std::string, const GradedLab*>> by_student;
    std::map<std::string, double> lab_max;  // a lab's maximum, from whoever has a result for it
    for (const GradedLab& r : results) {
        by_student[r.student][r.lab] = &r;
        lab_max[r.lab] = std::max(lab_max[r.lab], r.max_points);
    }
    std::ofstream out = open_for_writing(path);
    out << "student";
    for (const std::string& lab : labs_in_order) out << "," << csv_field(lab);
    out << ",total,max_total,points_not_run,status\r\n";
    for (const auto& [student, labs] : by_student) {
        double total = 0, max_total = 0, not_run = 0;
        std::vector<std::string> problems;
        out << csv_field(student);
        for (const std::string& lab : labs_in_order) {
            const auto found = labs.find(lab);
            max_total += lab_max[lab];
            if (found == labs.end()) {
                out << ",";
                problems.push_back(lab + ": not graded");
                continue;
            }
            const GradedLab& r = *found->second;
            total += r.points;
            not_run += number_of(r.result, "points_not_run");
            if (r.status != status::graded) problems.push_back(lab + ": " + r.status);
            out << "," << points_text(r.points);
        }
        std::string status_text;
        for (const std::string& p : problems) status_text += (status_text.empty() ? "" : "; ") + p;
        out << "," << points_text(total) << "," << points_text(max_total) << "," << points_text(not_run) << ","
            << csv_field(problems.empty() ? status::graded : status_text) << "\r\n";
    }
    finish(out, path);
}

// ---- Gradescope ---------------------------------------------------------------------------------------------

json gradescope_results_json(const std::vector<GradedLab>& results_of_one_student) {
    json tests = json::array();
    double score = 0;
    std::string output;
    for (const GradedLab& lab : results_of_one_student) {
        score += lab.points;
        output += "- **" + MarkdownDocument::escape(lab.lab) + "**: " + out_of(lab.points, lab.max_points) + ", " +
                  MarkdownDocument::escape(lab.status) + "\n";
        // The lab's tests, where they account for its points; else the lab as one test.
        const json& lab_tests = tests_of(lab);
        double test_points = 0, test_max = 0;
        for (const json& test : lab_tests) {
            test_points += number_of(test, "points");
            test_max += number_of(test, "max_points");
        }
        const bool tests_shown = !lab_tests.empty() && same(test_points, lab.points) && same(test_max, lab.max_points);
        const std::string reason = gradescope_lab_reason(lab, tests_shown);
        if (!reason.empty()) output += "\n" + reason + "\n\n";
        if (tests_shown) {
            for (const json& test : lab_tests) {
                const double max_points = number_of(test, "max_points");
                // A 0-point report is not a failure unless it failed.
                const bool passed = outcome_of(test) == Outcome::passed ||
                                    (max_points == 0 && number_of(test, "failed") == 0);
                tests.push_back({{"name", lab.lab + " " + string_of(test, "id")},
                                 {"score", number_of(test, "points")},
                                 {"max_score", max_points},
                                 {"status", passed && is_status(lab, status::graded) ? "passed" : "failed"},
                                 {"output", gradescope_test_output(test, lab)},
                                 {"output_format", "md"},
                                 {"visibility", "visible"}});
            }
        } else {
            tests.push_back({{"name", lab.lab},
                             {"score", lab.points},
                             {"max_score", lab.max_points},
                             {"status", is_status(lab, status::graded) && same(lab.points, lab.max_points) ? "passed" : "failed"},
                             {"output", reason.empty() ? lab.status : reason},
                             {"output_format", "md"},
                             {"visibility", "visible"}});
        }
    }
    if (results_of_one_student.empty()) output = "No lab was graded.";
    return {{"score", score},
            {"output", trimmed(output)},
            {"output_format", "md"},
            {"visibility", "visible"},
            {"tests", tests}};
}

// ---- feedback ----------------------------------------------------------------------------------------------

FeedbackFiles write_feedback(const fs::path& dir, const std::string& student, const std::vector<GradedLab>& results) {
    FeedbackFiles files;
    files.markdown = dir / "feedback.md";
    files.html = dir / "feedback.html";
    std::vector<GradedLab> labs = results;
    std::stable_sort(labs.begin(), labs.end(), [](const GradedLab& a, const GradedLab& b) { return a.lab < b.lab; });
    std::vector<std::vector<Picture>> pictures;
    for (const GradedLab& lab : labs) pictures.push_back(copy_pictures(dir, lab, files));
    {
        std::ofstream out = open_for_writing(files.markdown);
        MarkdownDocument doc(out);
        write_document(doc, student, labs, pictures);
        finish(out, files.markdown);
    }
    {
        std::ofstream out = open_for_writing(files.html);
        {
            HtmlDocument doc(out, "Feedback for " + student);
            write_document(doc, student, labs, pictures);
        }  // closes </body></html>
        finish(out, files.html);
    }
    return files;
}

// ---- a student's own report page ------------------------------------------------------------------------------

fs::path write_report_page(const fs::path& out, const json& summary, const std::string& whose) {
    std::vector<GradedLab> labs = graded_labs_from_summary(whose, summary, out.string());
    std::stable_sort(labs.begin(), labs.end(), [](const GradedLab& a, const GradedLab& b) { return a.lab < b.lab; });
    std::vector<std::vector<Picture>> pictures;
    for (GradedLab& lab : labs) {
        // The pictures stay where the grader wrote them; the page holds copies of their bytes.
        std::vector<Picture> shown;
        for (const auto& [artifact, source] : picture_artifacts(lab)) {  // artifacts_dir: out
            std::error_code error;
            const fs::path relative = fs::relative(source, out, error);
            shown.push_back({source.string(), error || relative.empty() ? source.string() : relative.string()});
        }
        pictures.push_back(std::move(shown));
        for (const char* log : {"tests.log", "cpu/tests.log", "cpu-reports/tests.log", "build.log"})
            if (fs::exists(out / lab.lab / log)) lab.logs.push_back({lab.lab + "/" + log, lab.lab + "/" + log});
    }
    const fs::path page = out / "report.html";
    std::ofstream file = open_for_writing(page);
    {
        HtmlDocument doc(file, "Feedback for " + whose, out);
        write_document(doc, whose, labs, pictures);
    }  // closes </body></html>
    finish(file, page);
    return page;
}

// ---- the overview ---------------------------------------------------------------------------------------------

OverviewFiles write_overview(const fs::path& dir, const std::vector<GradedLab>& results) {
    OverviewFiles files;
    files.csv = dir / "overview.csv";
    std::vector<const GradedLab*> sorted;
    for (const GradedLab& r : results) sorted.push_back(&r);
    std::stable_sort(sorted.begin(), sorted.end(), [](const GradedLab* a, const GradedLab* b) {
        return std::tie(a->lab, a->student) < std::tie(b->lab, b->student);
    });

    struct Failing {
        int students = 0;
        double max_points = 0;
        std::size_t order = 0;  // the test's place in the lab's table, to break ties
    };
    std::map<std::string, std::vector<const GradedLab*>> by_lab;
    std::map<std::string, std::map<std::string, Failing>> failing;
    for (const GradedLab* r : sorted) {
        by_lab[r->lab].push_back(r);
        if (r->status != status::graded) continue;
        const json& tests = tests_of(*r);
        for (std::size_t i = 0; i < tests.size(); ++i) {
            if (outcome_of(tests[i]) != Outcome::lost_points) continue;
            Failing& f = failing[r->lab][string_of(tests[i], "id")];
            f.students += 1;
            f.max_points = number_of(tests[i], "max_points");
            f.order = i;
        }
    }

    std::ofstream out = open_for_writing(files.csv);
    out << "record,lab,name,status,points,max_points,students,mean,median\r\n";
    for (const GradedLab* r : sorted) {
        out << "score," << csv_field(r->lab) << "," << csv_field(r->student) << "," << csv_field(r->status) << ","
            << points_text(r->points) << "," << points_text(r->max_points) << ",,,\r\n";
    }
    for (const auto& [lab, rows] : by_lab) {
        std::map<std::string, int> counts;
        std::vector<double> points;
        double max_points = 0;
        for (const GradedLab* r : rows) {
            counts[r->status] += 1;
            points.push_back(r->points);
            max_points = std::max(max_points, r->max_points);
        }
        std::string statuses;
        for (const auto& [word, n] : counts) statuses += (statuses.empty() ? "" : "; ") + word + "=" + std::to_string(n);
        double sum = 0;
        for (double p : points) sum += p;
        out << "lab," << csv_field(lab) << ",," << csv_field(statuses) << ",," << points_text(max_points) << ","
            << rows.size() << "," << points_text(sum / double(rows.size())) << "," << points_text(median_of(points)) << "\r\n";
    }
    for (const auto& [lab, tests] : failing) {
        std::vector<std::pair<std::string, Failing>> ordered(tests.begin(), tests.end());
        std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
            return a.second.students != b.second.students ? a.second.students > b.second.students : a.second.order < b.second.order;
        });
        for (const auto& [test, f] : ordered) {
            out << "failing," << csv_field(lab) << "," << csv_field(test) << ",," << "," << points_text(f.max_points) << ","
                << f.students << ",,\r\n";
        }
    }
    finish(out, files.csv);

    if (results.empty()) {
        files.plot_skipped_because = "no results to draw";
        return files;
    }
    const fs::path png = dir / "overview.png";
    const PlotOutcome plot = draw_plot("class-overview", files.csv.string(), {"--out", png.string()});
    files.plotted = plot.drawn;
    if (plot.drawn) files.png = png;
    else files.plot_skipped_because = plot.skipped_because;
    return files;
}

}  // namespace gpulab::feedback
