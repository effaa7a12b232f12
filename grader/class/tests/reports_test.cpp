// The reports of a graded class, from real gpulab-grade summaries (grader/class/tests/samples/: lab 07
// in CPU execution mode with a planted missing __syncthreads and the reference, lab 07 refused for
// calling cuBLAS, lab 02 with a planted halo bug and its heat-map pictures, lab 01 that does not
// compile, lab 01 whose result channel was forged, lab 01 with a planted boundary bug, whose summary
// orders what went wrong) and an empty submission: the gradebook's rows, totals, statuses and quoting;
// Gradescope's results.json against its spec; the feedback a student reads, in Markdown and HTML,
// escaped and with its pictures, in the grader's order; a test's report table (Report.GpuProfile's) with its
// picture in the feedback and in Gradescope's output; the overview's counts and plot.
#include "reports.h"
#include "results_db.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace gpulab::grade_class;

namespace {

const fs::path kSamples = fs::path(GPULAB_SOURCE_DIR) / "grader/class/tests/samples";

json load(const std::string& name) {
    std::ifstream in(kSamples / name);
    if (!in) throw std::runtime_error("missing fixture " + (kSamples / name).string());
    return json::parse(in);
}

GradedLab lab_of(const std::string& student, const std::string& sample, const std::string& artifacts_dir = "") {
    std::vector<GradedLab> labs = graded_labs_from_summary(student, load(sample), artifacts_dir);
    if (labs.size() != 1) throw std::runtime_error(sample + " should hold one lab");
    return labs[0];
}

GradedLab empty_lab(const std::string& student, const std::string& lab, double max_points) {
    GradedLab r;
    r.student = student;
    r.lab = lab;
    r.status = status::empty;
    r.max_points = max_points;
    r.notes = {"no file of 07-matmul was found (looked for matmul.cu)", "ignored: notes.txt, a.out"};
    return r;
}

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// RFC 4180, enough to read back what the gradebook wrote: the test does not trust the writer's quoting.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') rows.back().back() += '"', ++i;
            else if (c == '"') quoted = false;
            else rows.back().back() += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            rows.back().emplace_back();
        } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
            ++i;
            rows.emplace_back(1);
        } else {
            rows.back().back() += c;
        }
    }
    if (rows.back().size() == 1 && rows.back()[0].empty()) rows.pop_back();
    return rows;
}

class Reports : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("gpulab-reports-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_ / "alice-grade");
        // The pictures lab 02 left (their content does not matter here, their names and copies do).
        const json heat2d = load("graded-02-halo-off-by-one.json");
        for (const json& artifact : heat2d["labs"][0]["artifacts"])
            std::ofstream(dir_ / "alice-grade" / artifact.get<std::string>()) << "picture " << artifact;

        alice_ = {lab_of("alice", "graded-07-missing-syncthreads.json"),
                  lab_of("alice", "graded-02-halo-off-by-one.json", (dir_ / "alice-grade").string())};
        alice_[1].notes = {"found heat2d.cu in submission/lab2/src/ (nested one folder too deep)",
                           "ignored: Makefile (the grader's build is used)"};
        bob_ = {lab_of("bob", "graded-07-reference.json"), lab_of("bob", "did-not-build-01.json")};
        carol_ = {empty_lab(kCarol, "07-matmul", 100)};
        dave_ = {lab_of("dave", "refused-07-calls-cublas.json")};
        erin_ = {lab_of("=erin", "tampered-01-forged-progress-line.json")};
        frank_ = {lab_of("frank", "graded-07-missing-syncthreads.json")};
        for (const auto* student : {&alice_, &bob_, &carol_, &dave_, &erin_, &frank_})
            class_.insert(class_.end(), student->begin(), student->end());
    }
    void TearDown() override {
        if (!HasFailure()) fs::remove_all(dir_);
    }

    static constexpr const char* kCarol = "Carol \"CJ\", Jr.\nof Section 2";
    fs::path dir_;
    std::vector<GradedLab> alice_, bob_, carol_, dave_, erin_, frank_, class_;
    const std::vector<std::string> labs_ = {"01-heat-rod", "02-heat-2d", "07-matmul"};
};

// ---- status and summaries --------------------------------------------------------------------------------

TEST_F(Reports, StatusComesFromTheSummary) {
    EXPECT_EQ(alice_[0].status, status::graded);
    EXPECT_EQ(alice_[0].points, 40);
    EXPECT_EQ(alice_[0].max_points, 100);
    EXPECT_EQ(alice_[0].mode, "cpu");
    EXPECT_EQ(alice_[0].seed, "915271162");
    EXPECT_EQ(alice_[0].gpu_name, "");  // CPU execution mode: no GPU to name
    EXPECT_EQ(bob_[1].status, status::did_not_build);
    EXPECT_EQ(dave_[0].status, status::refused);
    EXPECT_EQ(erin_[0].status, status::tampered);
    EXPECT_THROW(graded_labs_from_summary("x", json::object()), std::runtime_error);
}

// ---- the gradebook ----------------------------------------------------------------------------------------

TEST_F(Reports, GradebookHasOneRowPerStudentWithTotalsAndStatuses) {
    const fs::path path = dir_ / "gradebook.csv";
    write_gradebook_csv(path, labs_, class_);
    const auto rows = parse_csv(read(path));
    ASSERT_EQ(rows.size(), 7u) << read(path);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"student", "01-heat-rod", "02-heat-2d", "07-matmul", "total", "max_total",
                                                 "points_not_run", "status"}));
    std::map<std::string, std::vector<std::string>> by_student;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        ASSERT_EQ(rows[i].size(), rows[0].size()) << "row " << i << " of\n" << read(path);
        by_student[rows[i][0]] = rows[i];
    }
    // Every lab's maximum is 100, so every student's max_total is 300, whatever they submitted.
    EXPECT_EQ(by_student["alice"], (std::vector<std::string>{"alice", "", "44", "40", "84", "300", "59", "01-heat-rod: not graded"}));
    EXPECT_EQ(by_student["bob"],
              (std::vector<std::string>{"bob", "0", "", "67", "67", "300", "33",
                                        "01-heat-rod: did not build; 02-heat-2d: not graded"}));
    EXPECT_EQ(by_student[kCarol][3], "0");
    EXPECT_EQ(by_student[kCarol][7], "01-heat-rod: not graded; 02-heat-2d: not graded; 07-matmul: empty");
    EXPECT_EQ(by_student["dave"][3], "0");
    EXPECT_NE(by_student["dave"][7].find("07-matmul: refused"), std::string::npos);
    // A name a spreadsheet would run as a formula is kept as text.
    ASSERT_EQ(by_student.count("'=erin"), 1u) << read(path);
    EXPECT_NE(by_student["'=erin"][7].find("01-heat-rod: tampered"), std::string::npos);
    EXPECT_EQ(by_student["frank"][4], "40");

    // Only the labs asked for, in that order: a student graded on all of them is "graded".
    write_gradebook_csv(path, {"07-matmul"}, class_);
    const auto only_07 = parse_csv(read(path));
    ASSERT_EQ(only_07[0].size(), 6u);
    for (const auto& row : only_07)
        if (row[0] == "alice" || row[0] == "frank") EXPECT_EQ(row[5], "graded") << row[0];
}

TEST_F(Reports, CsvFieldsAreQuotedWhereTheyMustBe) {
    EXPECT_EQ(csv_field("alice"), "alice");
    EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csv_field("cr\rhere"), "\"cr\rhere\"");
    EXPECT_EQ(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
    EXPECT_EQ(csv_field("@sum"), "'@sum");
    EXPECT_EQ(csv_field(""), "");
    // Read back, a quoted name is the name.
    const fs::path path = dir_ / "quoting.csv";
    write_gradebook_csv(path, labs_, carol_);
    const auto rows = parse_csv(read(path));
    ASSERT_EQ(rows.size(), 2u) << read(path);
    EXPECT_EQ(rows[1][0], kCarol);
}

TEST_F(Reports, GradebookThatCannotBeWrittenSaysWhere) {
    std::ofstream(dir_ / "a-file") << "x";
    try {
        write_gradebook_csv(dir_ / "a-file" / "gradebook.csv", labs_, class_);
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("a-file/gradebook.csv"), std::string::npos) << e.what();
    }
}

// ---- Gradescope ------------------------------------------------------------------------------------------

// The spec's fields and types, and the sums that make Gradescope's total the lab's.
void expect_gradescope_shape(const json& results, double score, double max_score) {
    ASSERT_TRUE(results.is_object());
    ASSERT_TRUE(results.contains("score") && results["score"].is_number()) << results.dump(1);
    EXPECT_DOUBLE_EQ(results["score"].get<double>(), score);
    EXPECT_EQ(results.value("output_format", ""), "md");
    EXPECT_EQ(results.value("visibility", ""), "visible");
    ASSERT_TRUE(results["output"].is_string());
    ASSERT_TRUE(results["tests"].is_array());
    ASSERT_FALSE(results["tests"].empty());
    double scores = 0, maxima = 0;
    for (const json& test : results["tests"]) {
        ASSERT_TRUE(test["name"].is_string() && !test["name"].get<std::string>().empty()) << test.dump(1);
        ASSERT_TRUE(test["score"].is_number()) << test.dump(1);
        ASSERT_TRUE(test["max_score"].is_number()) << test.dump(1);
        EXPECT_LE(test["score"].get<double>(), test["max_score"].get<double>() + 1e-9) << test.dump(1);
        const std::string status = test.value("status", "");
        EXPECT_TRUE(status == "passed" || status == "failed") << test.dump(1);
        EXPECT_TRUE(test["output"].is_string());
        EXPECT_EQ(test.value("output_format", ""), "md");
        EXPECT_EQ(test.value("visibility", ""), "visible");
        scores += test["score"].get<double>();
        maxima += test["max_score"].get<double>();
    }
    EXPECT_NEAR(scores, score, 1e-9);
    EXPECT_NEAR(maxima, max_score, 1e-9);
}

const json* test_named(const json& results, const std::string& name) {
    for (const json& test : results["tests"])
        if (test["name"] == name) return &test;
    return nullptr;
}

TEST_F(Reports, GradescopeResultsFollowTheSpecAndSum) {
    const json alice = gradescope_results_json(alice_);
    expect_gradescope_shape(alice, 84, 200);
    EXPECT_EQ(alice["tests"].size(), 13u + 17u);
    const json* tiled = test_named(alice, "07-matmul Tiled.MatchesOracle");
    ASSERT_NE(tiled, nullptr) << alice.dump(1);
    EXPECT_EQ((*tiled)["status"], "failed");
    EXPECT_EQ((*tiled)["max_score"], 20);
    EXPECT_NE((*tiled)["output"].get<std::string>().find("__syncthreads()"), std::string::npos);
    const json* naive = test_named(alice, "07-matmul Naive.MatchesOracle");
    ASSERT_NE(naive, nullptr);
    EXPECT_EQ((*naive)["status"], "passed");
    EXPECT_EQ((*naive)["score"], 15);
    const json* speed = test_named(alice, "07-matmul Speed.TiledThroughput");
    ASSERT_NE(speed, nullptr);
    EXPECT_EQ((*speed)["status"], "failed");  // 10 points a student does not have
    EXPECT_NE((*speed)["output"].get<std::string>().find("needs a real GPU"), std::string::npos);
    EXPECT_NE(alice["output"].get<std::string>().find("nested one folder too deep"), std::string::npos);

    // Did not build: the compiler's words at the top; its tests all count nothing.
    const json bob = gradescope_results_json(bob_);
    expect_gradescope_shape(bob, 67, 200);
    EXPECT_NE(bob["output"].get<std::string>().find("expected"), std::string::npos) << bob["output"];
    EXPECT_NE(bob["output"].get<std::string>().find("did not compile"), std::string::npos) << bob["output"];
    const json* step = test_named(bob, "01-heat-rod Step.MatchesOracle");
    ASSERT_NE(step, nullptr);
    EXPECT_EQ((*step)["status"], "failed");

    // Empty: one test of the lab's points, saying why.
    const json carol = gradescope_results_json(carol_);
    expect_gradescope_shape(carol, 0, 100);
    ASSERT_EQ(carol["tests"].size(), 1u);
    EXPECT_EQ(carol["tests"][0]["name"], "07-matmul");
    EXPECT_NE(carol["tests"][0]["output"].get<std::string>().find("none of this lab's files"), std::string::npos);

    const json dave = gradescope_results_json(dave_);
    expect_gradescope_shape(dave, 0, 100);
    EXPECT_NE(dave["output"].get<std::string>().find("cuBLAS"), std::string::npos);
    for (const json& test : dave["tests"]) EXPECT_EQ(test["status"], "failed") << test.dump();

    const json erin = gradescope_results_json(erin_);
    expect_gradescope_shape(erin, 0, 100);
    EXPECT_NE(erin["output"].get<std::string>().find("tampered with"), std::string::npos);
}

TEST_F(Reports, GradescopeFallsBackToOneTestWhenTheTestsDoNotAddUp) {
    GradedLab odd = alice_[0];
    odd.points = 30;  // the database's points, not the tests' 40: the lab's own total must win
    const json results = gradescope_results_json({odd});
    expect_gradescope_shape(results, 30, 100);
    ASSERT_EQ(results["tests"].size(), 1u);
}

// ---- feedback ------------------------------------------------------------------------------------------

TEST_F(Reports, FeedbackHasTheTablesFailuresAndPictures) {
    const FeedbackFiles files = write_feedback(dir_ / "alice", "alice", alice_);
    const std::string md = read(files.markdown), html = read(files.html);
    ASSERT_FALSE(md.empty());
    ASSERT_FALSE(html.empty());
    for (const json& test : alice_[0].result["tests"]) {
        const std::string id = test["id"], verdict = test["verdict"];
        EXPECT_NE(md.find("| " + id + " |"), std::string::npos) << id;
        EXPECT_NE(html.find("<td>" + id + "</td>"), std::string::npos) << id;
        EXPECT_NE(html.find("<td>" + verdict + "</td>"), std::string::npos) << verdict;
    }
    EXPECT_NE(md.find("| Tiled.MatchesOracle | 0/20 | 13/13 failed |"), std::string::npos) << md;
    EXPECT_NE(md.find("| Naive.MatchesOracle | 15/15 | 13/13 passed | largest error 0.10x allowed |"), std::string::npos);
    EXPECT_NE(html.find("<tr class=\"lost_points\"><td>Tiled.MatchesOracle</td><td>0/20</td>"), std::string::npos);
    // A threshold's '|' and '<' are the text, not table syntax or a tag.
    EXPECT_NE(md.find("\\|error\\| \\<= 3 u sqrt(K) sum\\|A B\\|"), std::string::npos) << md;
    EXPECT_NE(html.find("|error| &lt;= 3 u sqrt(K) sum|A B|"), std::string::npos);
    // The failure messages, whole.
    EXPECT_NE(md.find("Shapes/Tiled.MatchesOracle/m1_n1_k1 failed:\nlaunch_matmul_tiled(m=1, n=1, k=1)"), std::string::npos);
    EXPECT_NE(html.find("a __syncthreads() between the loads and the multiply"), std::string::npos);
    // Totals and what CPU mode could not grade.
    EXPECT_NE(md.find("| **total** | **84/200** |"), std::string::npos) << md;
    EXPECT_NE(md.find("33 of the 100 points (speed and technique) need a real GPU"), std::string::npos);
    // What intake found.
    EXPECT_NE(md.find("nested one folder too deep"), std::string::npos);
    EXPECT_NE(html.find("<li>ignored: Makefile (the grader&#39;s build is used)</li>"), std::string::npos);

    // Pictures: copied next to the feedback, referenced relatively; the snapshot data is not a picture.
    EXPECT_EQ(files.pictures.size(), 9u);
    EXPECT_TRUE(files.missing_pictures.empty()) << files.missing_pictures.front();
    for (const std::string& picture : files.pictures) {
        EXPECT_TRUE(fs::is_regular_file(dir_ / "alice" / picture)) << picture;
        EXPECT_NE(md.find("](<" + picture + ">)"), std::string::npos) << picture;
        EXPECT_NE(html.find("<img src=\"" + picture + "\""), std::string::npos) << picture;
    }
    EXPECT_TRUE(fs::is_regular_file(dir_ / "alice/pictures/02-heat-2d/heat2d_t0.50_expected.png"));
    EXPECT_FALSE(fs::exists(dir_ / "alice/pictures/02-heat-2d/heat2d_snapshots.json"));
    // Self-contained: no script, nothing fetched from elsewhere.
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_EQ(html.find("http"), std::string::npos);
    EXPECT_NE(html.find("<style>"), std::string::npos);
    EXPECT_NE(html.find("@media print"), std::string::npos);
}

// The admission verdict travels whole in summary.json; an entry written before it did (a class database graded
// earlier) reads the same.
TEST(AdmissionOfLab, ReadsTheWholeVerdictAndAnEntryWrittenBeforeIt) {
    const json now = {{"admission", {{"verdict", "cpu_mode_cannot_build"}, {"reason", "uses __shfl_down_sync"}}}};
    EXPECT_EQ(admission_of(now).verdict, "cpu_mode_cannot_build");
    EXPECT_EQ(admission_of(now).reason, "uses __shfl_down_sync");
    EXPECT_EQ(status_of(now), status::did_not_build);
    const json before = {{"compiled", false}, {"build_errors", "x.cu:1: gpulab CPU execution mode: __shfl_down_sync"}};
    EXPECT_EQ(admission_of(before).verdict, "cpu_mode_cannot_build");
    EXPECT_EQ(status_of(before), status::did_not_build);
    const json refused_before = {{"compiled", true}, {"voided", "refused"}, {"void_reason", "calls getenv"}};
    EXPECT_EQ(status_of(refused_before), status::refused);
    EXPECT_EQ(admission_of(refused_before).reason, "calls getenv");
    EXPECT_EQ(status_of(json{{"admission", {{"verdict", "admitted"}, {"reason", ""}}}}), status::graded);
}

TEST_F(Reports, FeedbackShowsTheCompilerMessageAsText) {
    GradedLab hostile = bob_[1];
    hostile.student = "<b>mallory</b>";
    hostile.result["admission"]["reason"] = "heat_rod.cu:3:1: error: '<script>alert(1)</script>' does not name a type\n"
                                            "   3 | ```<script>alert(1)</script>\n";
    const FeedbackFiles files = write_feedback(dir_ / "mallory", hostile.student, {hostile});
    const std::string md = read(files.markdown), html = read(files.html);
    EXPECT_EQ(html.find("<script"), std::string::npos) << html;
    EXPECT_EQ(html.find("<b>mallory"), std::string::npos);
    EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(html.find("<title>Feedback for &lt;b&gt;mallory&lt;/b&gt;</title>"), std::string::npos);
    EXPECT_NE(html.find("Your code did not compile"), std::string::npos);
    // In Markdown the message is in a fence longer than the backticks it holds, so it stays a code block.
    EXPECT_NE(md.find("````text\nheat_rod.cu:3:1: error: '<script>alert(1)</script>'"), std::string::npos) << md;
    EXPECT_NE(md.find("# Feedback for \\<b\\>mallory\\</b\\>"), std::string::npos) << md;

    // The real compiler message of the sample, as the student wrote it.
    const FeedbackFiles bob = write_feedback(dir_ / "bob", "bob", bob_);
    const std::string bob_html = read(bob.html);
    EXPECT_NE(bob_html.find("heat_rod.cu:23:9: error: expected"), std::string::npos) << bob_html;
    EXPECT_NE(read(bob.markdown).find("out[i] = centre + r * (in[i + 1] - 2.0f * centre + in[i - 1]);"), std::string::npos);
}

TEST_F(Reports, FeedbackSaysWhyALabScoredNothing) {
    const std::string carol = read(write_feedback(dir_ / "carol", kCarol, carol_).markdown);
    EXPECT_NE(carol.find("held none of this lab's files"), std::string::npos) << carol;
    EXPECT_NE(carol.find("ignored: notes.txt, a.out"), std::string::npos);
    const std::string dave = read(write_feedback(dir_ / "dave", "dave", dave_).html);
    EXPECT_NE(dave.find("includes &lt;cublas_v2.h&gt;: it uses cuBLAS"), std::string::npos) << dave;
    const std::string erin = read(write_feedback(dir_ / "erin", "erin", erin_).markdown);
    EXPECT_NE(erin.find("The results of this run were tampered with"), std::string::npos) << erin;
}

// gpulab-grade orders what went wrong (summary.json's lab "feedback"): the failure others wait on first, the tests
// not counted until it passes in one line, and why once. The feedback pages and Gradescope say it in that order.
TEST_F(Reports, WhatWentWrongFollowsTheGradersOrder) {
    const GradedLab boundary = lab_of("grace", "graded-01-off-by-one-boundary.json");
    const std::string first = "Sizes/Boundary.InsulatedEnds/M4 failed:", other = "Starts/Solve.MatchesOracle/gaussian failed:",
                      held = "Not counted until Boundary.InsulatedEnds passes: Sanitizer.NoErrors",
                      why = "Speed and technique count only for code that is right first, so it was not run.";
    const auto in_order = [&](const std::string& text) {
        const std::size_t a = text.find(first), b = text.find(other), c = text.find(held), d = text.find(why);
        EXPECT_NE(d, std::string::npos) << text;
        EXPECT_TRUE(a < b && b < c && c < d) << text;
        // The held-back test's own sentence stays in its test, not in the list.
        EXPECT_EQ(text.find("Sanitizer.NoErrors is not counted until"), std::string::npos) << text;
    };
    const FeedbackFiles files = write_feedback(dir_ / "grace", "grace", {boundary});
    in_order(read(files.markdown));
    in_order(read(files.html));
    // Gradescope: above the tests, the failures by name in that order, then the held-back line and why; each
    // failure's messages once, in its own test's output.
    const json gradescope = gradescope_results_json({boundary});
    const std::string top = gradescope["output"].get<std::string>();
    EXPECT_TRUE(top.find("Boundary.InsulatedEnds (fix it first") < top.find("Solve.MatchesOracle") &&
                top.find("Solve.MatchesOracle") < top.find(held) && top.find(held) < top.find(why))
        << top;
    EXPECT_EQ(top.find(first), std::string::npos) << top;
    std::size_t copies = top.find(first) != std::string::npos;
    for (const json& test : gradescope["tests"]) copies += test["output"].get<std::string>().find(first) != std::string::npos;
    EXPECT_EQ(copies, 1u) << "each failure's messages appear once on the Gradescope page";
    EXPECT_NE(read(files.markdown).find("- " + held), std::string::npos);
    // The table keeps each test's verdict.
    EXPECT_NE(read(files.markdown).find("| Sanitizer.NoErrors | 0/0 | not counted |"), std::string::npos);
}

TEST_F(Reports, FeedbackListsPicturesItCouldNotCopy) {
    GradedLab lab = alice_[1];
    lab.artifacts_dir = (dir_ / "nowhere").string();
    const FeedbackFiles files = write_feedback(dir_ / "lost", "alice", {lab});
    EXPECT_TRUE(files.pictures.empty());
    ASSERT_EQ(files.missing_pictures.size(), 9u);
    EXPECT_NE(files.missing_pictures[0].find("heat2d_t0.00.png"), std::string::npos) << files.missing_pictures[0];
    EXPECT_EQ(read(files.html).find("<img"), std::string::npos);
}

// ---- a test's report table (Report.GpuProfile, Report.AccessAnalysis) ------------------------------------------

// Report.GpuProfile as gpulab-grade's summary.json holds it: 0 points, the table in the property "report_table"
// (columns aligned by the test, the diagnoses and a long legend line under it), its picture named in "measured"
// by the grading machine's path. The table carries text that Markdown and HTML would read as syntax.
const char* const kProfileTable =
    "GPU counters (Nsight Compute, NVIDIA H100 80GB HBM3), each timed launch run once outside any timed window\n"
    "  launch                                   kernels    occ ach/theor limit         ld sec/rq st sec/rq  conf/ld  "
    "conf/st   gld B/B   shm B/B DRAM B/B (min)  branch  local B\n"
    "  launch_step_naive at 8192x8192           yours           83%/100% threads           28.40     32.00     0.00     "
    "0.00      5.00      0.00    9.76 (2.00)     97%        0\n"
    "  launch_step_naive at 8192x8192           reference       88%/100% threads            4.40      4.00     0.00     "
    "0.00      5.00      0.00    2.06 (2.00)     99%        0\n"
    "  launch_step_naive at 8192x8192 (yours): loads use 14% of each sector's bytes: index<x> by threadIdx.x, "
    "`tile[ty][tx]` | not [ty][tx+1] [uncoalesced-loads]\n"
    "  occ: achieved / theoretical occupancy of the longest kernel, limit: what binds the theoretical one; sec/rq: "
    "32-byte sectors per warp request (4 = 32 neighbouring floats, 32 = every lane its own sector); conf: bank "
    "conflicts (extra turns) per shared request; gld/shm B/B: global/shared bytes the threads read per byte they "
    "stored; DRAM B/B: DRAM bytes moved per byte stored (min: every buffer moved once)\n";
const char* const kProfileRow =
    "  launch_step_naive at 8192x8192           yours           83%/100% threads           28.40     32.00     0.00     "
    "0.00      5.00      0.00    9.76 (2.00)     97%        0";

// Lab 02 of alice with Report.GpuProfile added, and its picture in the lab's artifacts.
GradedLab with_gpu_profile(GradedLab lab) {
    const std::string png = (fs::path(lab.artifacts_dir) / "gpu_profile.png").string();
    std::ofstream(png) << "picture gpu_profile.png";
    lab.result["artifacts"].push_back("gpu_profile.png");
    lab.result["tests"].push_back(
        {{"id", "Report.GpuProfile"}, {"points", 0}, {"max_points", 0}, {"verdict", "passed"}, {"passed", 1},
         {"failed", 0}, {"skipped", 0}, {"instances", 1}, {"threshold", "a report: no bar"}, {"details", json::array()},
         {"measured", "NaiveStep: occupancy 83% of 100%, 28.4 sectors/load request, 9.76 DRAM B/B (uncoalesced-loads) "
                      "(profile 2.1 s; table in tests.log; picture " + png + ")"},
         {"properties", {{"report_table", kProfileTable}, {"causes", "NaiveStep: uncoalesced-loads"}}}});
    return lab;
}

// The longest line of a text, and whether `line` is one of its lines.
std::size_t longest_line(const std::string& text) {
    std::size_t longest = 0, at = 0;
    while (at <= text.size()) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        longest = std::max(longest, end - at);
        at = end + 1;
    }
    return longest;
}

std::string between(const std::string& text, const std::string& open, const std::string& close) {
    const std::size_t from = text.find(open);
    if (from == std::string::npos) return "";
    const std::size_t to = text.find(close, from + open.size());
    return text.substr(from + open.size(), to == std::string::npos ? std::string::npos : to - from - open.size());
}

TEST_F(Reports, FeedbackShowsAReportTableUnderItsTestWithItsPicture) {
    const GradedLab lab = with_gpu_profile(alice_[1]);
    const FeedbackFiles files = write_feedback(dir_ / "alice", "alice", {lab});
    const std::string md = read(files.markdown), html = read(files.html);

    // Markdown: under its own heading, in a fence, every character as the test wrote it (no escaping inside).
    const std::size_t md_heading = md.find("#### Report.GpuProfile\n\n```text\nGPU counters (Nsight Compute");
    ASSERT_NE(md_heading, std::string::npos) << md;
    EXPECT_NE(md.find(std::string(kProfileRow) + "\n", md_heading), std::string::npos) << md;
    EXPECT_NE(md.find("index<x> by threadIdx.x, `tile[ty][tx]` | not [ty][tx+1] [uncoalesced-loads]", md_heading),
              std::string::npos) << md;
    // The measured column names the copy beside the feedback, not the grading machine's folder.
    EXPECT_NE(md.find("picture pictures/02-heat-2d/gpu\\_profile.png)"), std::string::npos) << md;
    EXPECT_EQ(md.find((dir_ / "alice-grade/gpu_profile.png").string()), std::string::npos) << md;

    // HTML: a preformatted block that keeps its columns, escaped.
    const std::string block = between(html, "<pre class=\"report\">", "</pre>");
    ASSERT_FALSE(block.empty()) << html;
    EXPECT_NE(block.find(std::string(kProfileRow) + "\n"), std::string::npos) << block;
    EXPECT_NE(block.find("index&lt;x&gt; by threadIdx.x, `tile[ty][tx]` | not"), std::string::npos) << block;
    EXPECT_EQ(block.find('<'), std::string::npos) << block;
    EXPECT_NE(html.find("<h4>Report.GpuProfile</h4>\n<pre class=\"report\">"), std::string::npos);
    EXPECT_NE(html.find("pre.report { white-space: pre;"), std::string::npos);
    // The legend, a sentence longer than the table, is wrapped at the table's width; the rows never are.
    EXPECT_EQ(longest_line(block), std::string(kProfileRow).size()) << block;
    EXPECT_NE(block.find("\n    "), std::string::npos) << block;  // a continuation, indented under its line

    // The picture the test's measured names: right under the table at full width, and not again with the others.
    const std::string figure = "<figure class=\"wide\"><img src=\"pictures/02-heat-2d/gpu_profile.png\"";
    const std::size_t at = html.find(figure);
    ASSERT_NE(at, std::string::npos) << html;
    EXPECT_GT(at, html.find("<pre class=\"report\">"));
    EXPECT_LT(at, html.find("<h3>Pictures</h3>"));
    EXPECT_EQ(html.find("src=\"pictures/02-heat-2d/gpu_profile.png\"", at + figure.size()), std::string::npos) << html;
    EXPECT_TRUE(fs::is_regular_file(dir_ / "alice/pictures/02-heat-2d/gpu_profile.png"));
    EXPECT_EQ(files.pictures.size(), 10u);
    const std::size_t md_picture = md.find("](<pictures/02-heat-2d/gpu_profile.png>)");
    EXPECT_GT(md_picture, md_heading);
    EXPECT_LT(md_picture, md.find("### Pictures"));
    // The other pictures keep their section.
    EXPECT_GT(html.find("<figure><img src=\"pictures/02-heat-2d/heat2d_t0.00.png\""), html.find("<h3>Pictures</h3>"));
}

TEST_F(Reports, GradescopeShowsAReportTableInItsTestsOutput) {
    const json results = gradescope_results_json({with_gpu_profile(alice_[1])});
    expect_gradescope_shape(results, alice_[1].points, alice_[1].max_points);
    const json* report = test_named(results, "02-heat-2d Report.GpuProfile");
    ASSERT_NE(report, nullptr) << results.dump(1);
    EXPECT_EQ((*report)["status"], "passed");  // a 0-point report that ran
    EXPECT_EQ((*report)["max_score"], 0);
    const std::string output = (*report)["output"];
    // Markdown's code fence around the table, which keeps its columns and its characters.
    const std::string fenced = between(output, "```text\n", "\n```");
    ASSERT_FALSE(fenced.empty()) << output;
    EXPECT_EQ(fenced.rfind("GPU counters (Nsight Compute", 0), 0u) << fenced;
    EXPECT_NE(fenced.find(std::string(kProfileRow) + "\n"), std::string::npos) << fenced;
    EXPECT_NE(fenced.find("index<x> by threadIdx.x, `tile[ty][tx]` | not"), std::string::npos) << fenced;
    EXPECT_EQ(longest_line(fenced), std::string(kProfileRow).size()) << fenced;
    EXPECT_NE(output.find("measured: NaiveStep: occupancy 83% of 100%"), std::string::npos) << output;
    // A test without a report table has no fence of one.
    const json* naive = test_named(results, "02-heat-2d NaiveStep.MatchesOracle");
    ASSERT_NE(naive, nullptr);
    EXPECT_EQ((*naive)["output"].get<std::string>().find("```"), std::string::npos) << (*naive)["output"];
}

// What gpulab-grade-class and gpulab-gradescope-results read back from summary.json keeps the property.
TEST_F(Reports, SummaryCarriesTheReportTable) {
    const GradedLab lab = with_gpu_profile(alice_[1]);
    const json summary = {{"mode", "gpu"}, {"gpu", true}, {"labs", json::array({lab.result})}};
    const std::vector<GradedLab> read_back = graded_labs_from_summary("alice", json::parse(summary.dump()));
    ASSERT_EQ(read_back.size(), 1u);
    EXPECT_EQ(read_back[0].result["tests"].back()["properties"]["report_table"], kProfileTable);
}

// ---- the overview ------------------------------------------------------------------------------------------

TEST_F(Reports, OverviewCountsScoresStatusesAndFailingTests) {
    const OverviewFiles files = write_overview(dir_ / "overview", class_);
    const auto rows = parse_csv(read(files.csv));
    ASSERT_FALSE(rows.empty());
    ASSERT_EQ(rows[0], (std::vector<std::string>{"record", "lab", "name", "status", "points", "max_points", "students",
                                                 "mean", "median"}));
    std::vector<std::vector<std::string>> scores, labs, failing;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        ASSERT_EQ(rows[i].size(), 9u) << read(files.csv);
        (rows[i][0] == "score" ? scores : rows[i][0] == "lab" ? labs : failing).push_back(rows[i]);
        if (rows[i][0] != "score" && rows[i][0] != "lab") EXPECT_EQ(rows[i][0], "failing");
    }
    EXPECT_EQ(scores.size(), class_.size());
    ASSERT_EQ(labs.size(), 3u);
    // 07-matmul: alice 40, bob 67, carol empty, dave refused, frank 40.
    EXPECT_EQ(labs[2], (std::vector<std::string>{"lab", "07-matmul", "", "empty=1; graded=3; refused=1", "", "100", "5",
                                                 "29.4", "40"}));
    EXPECT_EQ(labs[0][3], "did not build=1; tampered=1");
    // Failing tests: graded labs only; "not run" is not a failure; most common first.
    std::map<std::string, std::string> count;
    for (const auto& row : failing) count[row[1] + " " + row[2]] = row[6];
    EXPECT_EQ(count, (std::map<std::string, std::string>{{"07-matmul Tiled.MatchesOracle", "2"},
                                                         {"07-matmul Technique.ComputesFromSharedTiles", "2"},
                                                         {"02-heat-2d TiledStep.MatchesOracle", "1"},
                                                         {"02-heat-2d Solve.MatchesOracle", "1"},
                                                         {"02-heat-2d Stability.MaximumPrinciple", "1"},
                                                         {"02-heat-2d Stability.ConservesHeat", "1"},
                                                         {"02-heat-2d Stability.CosineDecayRate", "1"},
                                                         {"02-heat-2d Report.Snapshots", "1"}}));
    ASSERT_EQ(failing.size(), 8u);
    EXPECT_EQ(failing.back()[1] + " " + failing.back()[2], "07-matmul Technique.ComputesFromSharedTiles");

    // The plot: drawn, or not drawn with a reason an instructor can act on.
    if (files.plotted) {
        EXPECT_TRUE(fs::is_regular_file(files.png));
        EXPECT_GT(fs::file_size(files.png), 10000u);
    } else {
        EXPECT_NE(files.plot_skipped_because.find("matplotlib"), std::string::npos) << files.plot_skipped_because;
    }
}

TEST_F(Reports, OverviewPlotIsSkippedWithAReason) {
    ::setenv("GPULAB_PYTHON", (dir_ / "no-python").c_str(), 1);
    const OverviewFiles files = write_overview(dir_ / "overview", class_);
    ::unsetenv("GPULAB_PYTHON");
    EXPECT_FALSE(files.plotted);
    EXPECT_TRUE(files.png.empty());
    EXPECT_NE(files.plot_skipped_because.find("GPULAB_PYTHON=" + (dir_ / "no-python").string() + " cannot be run"),
              std::string::npos)
        << files.plot_skipped_because;
    EXPECT_TRUE(fs::is_regular_file(files.csv));  // the numbers do not wait for the picture

    const OverviewFiles none = write_overview(dir_ / "nothing", {});
    EXPECT_FALSE(none.plotted);
    EXPECT_EQ(none.plot_skipped_because, "no results to draw");
}

}  // namespace
