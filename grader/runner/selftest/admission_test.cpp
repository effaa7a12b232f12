// Admission (admission.h), without a GPU: each gate stops a solution with its own verdict and reason, the
// earliest gate decides, a solution that passes every gate is admitted, and a verdict becomes the lab's score.
// The checks that feed admit() read real files: the sample objects of the call check's own test (call_samples/).
#include "admission.h"
#include "call_samples/call_samples.h"
#include "lab_grading.h"
#include "scoring.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

namespace {

namespace fs = std::filesystem;
using namespace gpulab::runner;

CallCheck refusing(const std::string& call, const std::string& verb = "calls") {
    RefusedCall refused;
    refused.call = call;
    refused.why = "is not on the list";
    refused.verb = verb;
    CallCheck check;
    check.refused.push_back(refused);
    return check;
}

SolutionBuild built() { return {}; }

SolutionBuild failed(const std::string& errors) {
    SolutionBuild build;
    build.built = false;
    build.errors = errors;
    return build;
}

TEST(Admission, ASolutionThatPassesEveryGateIsAdmitted) {
    AdmissionFacts facts;
    EXPECT_TRUE(admit(facts).admitted());  // nothing known yet: nothing refused
    facts.builds = {built(), built()};
    const AdmissionVerdict verdict = admit(facts);
    EXPECT_EQ(verdict.admission, Admission::admitted);
    EXPECT_EQ(verdict.reason, "");
}

TEST(Admission, ARefusedIncludeIsRefusedWithTheRule) {
    AdmissionFacts facts;
    facts.includes = refusing("<thrust/sort.h>", "includes");
    const AdmissionVerdict verdict = admit(facts);
    EXPECT_EQ(verdict.admission, Admission::refused);
    EXPECT_EQ(verdict.reason, facts.includes.describe());
    EXPECT_NE(verdict.reason.find("includes <thrust/sort.h>"), std::string::npos) << verdict.reason;
}

TEST(Admission, AFailedBuildIsNotCompiledWithTheCompilersWords) {
    AdmissionFacts facts;
    facts.builds = {failed("heat_rod.cu:12: error: expected ';'")};
    const AdmissionVerdict verdict = admit(facts);
    EXPECT_EQ(verdict.admission, Admission::not_compiled);
    EXPECT_EQ(verdict.reason, "heat_rod.cu:12: error: expected ';'");
}

TEST(Admission, ARefusedCallThatBrokeTheBuildIsTheReasonNotTheLinker) {
    AdmissionFacts facts;
    facts.builds = {failed("undefined reference to `cublasSgemm_v2'")};
    facts.builds[0].refused_in_failed_build = refusing("cublasSgemm_v2");
    const AdmissionVerdict verdict = admit(facts);
    EXPECT_EQ(verdict.admission, Admission::refused);
    EXPECT_EQ(verdict.reason, facts.builds[0].refused_in_failed_build.describe());
}

TEST(Admission, ARefusedCallAfterTheBuildIsRefusedBeforeAnythingRuns) {
    AdmissionFacts facts;
    facts.builds = {built()};
    facts.builds[0].calls = refusing("getenv");
    const AdmissionVerdict verdict = admit(facts);
    EXPECT_EQ(verdict.admission, Admission::refused);
    EXPECT_NE(verdict.reason.find("calls getenv: it is not on the list"), std::string::npos) << verdict.reason;
}

// A GPU grading builds CPU execution mode's part second: that build can fail after the first passed.
TEST(Admission, ASecondModeThatDoesNotBuildIsNotCompiled) {
    AdmissionFacts facts;
    facts.builds = {built(), failed("the build produced no library at libsolution.so")};
    const AdmissionVerdict verdict = admit(facts);
    EXPECT_EQ(verdict.admission, Admission::not_compiled);
    EXPECT_EQ(verdict.reason, "the build produced no library at libsolution.so");
}

TEST(Admission, TamperingFoundAfterTheRunVoidsIt) {
    AdmissionFacts facts;
    facts.builds = {built()};
    facts.tampering = "a progress line the grader did not write";
    const AdmissionVerdict verdict = admit(facts);
    EXPECT_EQ(verdict.admission, Admission::tampered);
    EXPECT_EQ(verdict.reason, "The results of this run were tampered with: a progress line the grader did not write. "
                              "None of this run's results count.");
}

TEST(Admission, TheEarliestGateDecides) {
    AdmissionFacts facts;
    facts.includes = refusing("<cublas_v2.h>", "includes");
    facts.builds = {failed("error")};
    facts.tampering = "forged";
    EXPECT_EQ(admit(facts).admission, Admission::refused);
    facts.includes = {};
    EXPECT_EQ(admit(facts).admission, Admission::not_compiled);
    facts.builds = {built()};
    EXPECT_EQ(admit(facts).admission, Admission::tampered);
}

nlohmann::json config() {
    return nlohmann::json::parse(R"({"lab": "00-x", "sources": ["calls_cublas.cpp"], "tests": [
        {"id": "Step.MatchesOracle", "points": 20}, {"id": "Speed.Fast", "points": 10}]})");
}

TEST(Admission, AVerdictBecomesTheLabsScore) {
    const LabScore refused = score_not_admitted(config(), {Admission::refused, "calls getenv"});
    EXPECT_EQ(refused.admission.admission, Admission::refused);
    EXPECT_EQ(refused.admission.reason, "calls getenv");
    EXPECT_TRUE(refused.admission.built());
    EXPECT_DOUBLE_EQ(refused.points, 0);
    EXPECT_DOUBLE_EQ(refused.max_points, 30);
    for (const IdScore& s : refused.ids) EXPECT_EQ(s.verdict, "refused");

    const LabScore uncompiled = score_not_admitted(config(), {Admission::not_compiled, "error: expected ';'"});
    EXPECT_FALSE(uncompiled.admission.built());
    EXPECT_EQ(uncompiled.admission.reason, "error: expected ';'");
    for (const IdScore& s : uncompiled.ids) EXPECT_EQ(s.verdict, "not compiled");

    const LabScore tampered = score_not_admitted(config(), {Admission::tampered, "forged"});
    EXPECT_EQ(tampered.admission.admission, Admission::tampered);
    EXPECT_EQ(tampered.admission.reason, "forged");
}

// A build that fails in CPU execution mode on a CUDA feature that mode does not run is its own verdict, decided
// here once: the table, the class feedback and Gradescope read it, none of them the compiler's words.
TEST(Admission, ABuildCpuModeCannotRunIsToldApartFromACompileError) {
    AdmissionFacts facts;
    facts.builds.push_back({false, "heat_rod.cu:12: gpulab CPU execution mode: __shfl_down_sync is not supported", {}, {}});
    EXPECT_EQ(admit(facts).admission, Admission::not_buildable_in_cpu_mode);
    EXPECT_FALSE(admit(facts).built());
    EXPECT_STREQ(admission_word(admit(facts).admission), "not compiled");
    facts.builds[0].errors = "heat_rod.cu:12: error: expected ';'";
    EXPECT_EQ(admit(facts).admission, Admission::not_compiled);
}

// The verdict's key in summary.json reads back as the same verdict, for every verdict.
TEST(Admission, EveryVerdictsKeyReadsBack) {
    for (Admission a : {Admission::admitted, Admission::refused, Admission::not_compiled,
                        Admission::not_buildable_in_cpu_mode, Admission::tampered})
        EXPECT_EQ(admission_of_key(admission_key(a)), a) << admission_key(a);
    EXPECT_STREQ(admission_key(Admission::not_buildable_in_cpu_mode), "cpu_mode_cannot_build");
}

// ---- the checks admit() reads --------------------------------------------------------------------------------

using call_samples::sample_object;

// A solution whose sources are in a folder of their own, removed afterwards.
struct SolutionFolder : call_samples::SourceFolder {
    SolutionFolder() : call_samples::SourceFolder("admission") { solution.sources_dir = path(); }
    Solution solution;
};

TEST(Admission, TheIncludeCheckReadsTheLabsSources) {
    SolutionFolder folder;
    folder.write("calls_cublas.cpp", "#include <thrust/sort.h>\n");
    const CallCheck check = check_includes(folder.solution, config());
    ASSERT_EQ(check.refused.size(), 1u) << check.describe();
    EXPECT_EQ(check.refused[0].library, "Thrust");
    // A variant that switches the call check off (to test the result channel behind it) passes.
    folder.solution.expect = folder.write("expect.json", R"({"call_check": false})");
    EXPECT_TRUE(check_includes(folder.solution, config()).passed());
}

TEST(Admission, TheCallCheckReadsTheBuildsObjects) {
    SolutionFolder folder;
    folder.write("calls_cublas.cpp", "int multiply();\n");
    const Build build{"solution-target", "libsolution.so", {sample_object("calls_cublas")}};
    const CallCheck check = check_calls(folder.solution, build, config());
    ASSERT_EQ(check.refused.size(), 1u) << check.describe();
    EXPECT_EQ(check.refused[0].call, "cublasSgemm_v2");
    // A build tree that lists no objects is the grader's problem.
    EXPECT_THROW(check_calls(folder.solution, Build{"solution-target", "libsolution.so", {}}, config()), UsageError);
}

// After a failed build only the objects compiled from the current sources count: one older than its source is
// left from an earlier version that compiled, and says nothing of the code that failed.
TEST(Admission, AfterAFailedBuildOnlyObjectsOfTheCurrentSourcesAreChecked) {
    SolutionFolder folder;
    const std::string source = folder.write("calls_cublas.cpp", "int multiply();\n");
    const std::string object = sample_object("calls_cublas");
    const Build build{"solution-target", "libsolution.so", {object}};
    fs::last_write_time(source, fs::last_write_time(object) - std::chrono::hours(1));
    const CallCheck current = check_calls_after_failed_build(folder.solution, build, config());
    ASSERT_EQ(current.refused.size(), 1u) << current.describe();
    EXPECT_EQ(current.refused[0].library, "cuBLAS");
    fs::last_write_time(source, fs::last_write_time(object) + std::chrono::hours(1));
    EXPECT_TRUE(check_calls_after_failed_build(folder.solution, build, config()).passed());
}

}  // namespace
