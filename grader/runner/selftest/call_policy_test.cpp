// The call check's refusal of libraries that compute the result (grader/runner/allowed_calls.json, "library"
// rules), on each of its three paths, without a GPU: a linked library by the call an object makes, a
// header-only one by the code an object defines, and both by the #include lines of the sources. The objects
// are compiled from call_samples/ by the host compiler; nothing is linked or run.
#include "call_policy.h"
#include "call_samples/call_samples.h"

#include "gpulab/lab_config.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace {

namespace fs = std::filesystem;
using namespace gpulab::runner;

const std::string kPolicy = GPULAB_CALL_POLICY;

using call_samples::sample_object;

// The include tests' sources.
struct SourceFolder : call_samples::SourceFolder {
    SourceFolder() : call_samples::SourceFolder("includes") {}
};

TEST(CallPolicy, RefusesALinkedLibraryByItsCall) {
    const CallCheck check = check_solution_calls({sample_object("calls_cublas")}, {}, kPolicy);
    ASSERT_TRUE(check.error.empty()) << check.error;
    ASSERT_EQ(check.refused.size(), 1u) << check.describe();
    EXPECT_EQ(check.refused[0].library, "cuBLAS");
    EXPECT_EQ(check.refused[0].verb, "calls");
    EXPECT_EQ(check.refused[0].call, "cublasSgemm_v2");
    const std::string message = check.describe();
    EXPECT_NE(message.find("calls cublasSgemm_v2: it uses cuBLAS, a library that computes the result for you"),
              std::string::npos) << message;
    EXPECT_NE(message.find("This lab grades kernels you write yourself"), std::string::npos) << message;
    EXPECT_NE(message.find("lab 07"), std::string::npos) << message;  // cuBLAS in a report is the grader's
    EXPECT_EQ(message.find("reach outside its kernels"), std::string::npos) << message;
}

TEST(CallPolicy, RefusesAHeaderOnlyLibraryDefinedInTheObjects) {
    const CallCheck check = check_solution_calls({sample_object("defines_thrust")}, {}, kPolicy);
    ASSERT_TRUE(check.error.empty()) << check.error;
    ASSERT_EQ(check.refused.size(), 1u) << check.describe();
    EXPECT_EQ(check.refused[0].library, "Thrust");
    EXPECT_EQ(check.refused[0].verb, "compiles in");
    EXPECT_EQ(check.refused[0].call, "thrust::transform_one");  // the ABI namespace and the template left out
    const std::string message = check.describe();
    EXPECT_NE(message.find("compiles in thrust::transform_one: it uses Thrust"), std::string::npos) << message;
    EXPECT_EQ(message.find("cuBLAS beside"), std::string::npos) << message;  // said only to those who used cuBLAS
}

TEST(CallPolicy, OwnNamesThatLookLikeALibrarysAreNotRefused) {
    const CallCheck check = check_solution_calls({sample_object("own_namespaces")}, {}, kPolicy);
    EXPECT_TRUE(check.passed()) << check.describe();
}

TEST(CallPolicy, RefusesLibraryIncludesFromTheSource) {
    SourceFolder folder;
    const std::string kernels = folder.write("kernels.cu",
                                             "#include \"kernels.h\"\n"
                                             "#include <cuda_runtime.h>\n"
                                             "#include <curand_kernel.h>\n"             // cuRAND's device API: allowed
                                             "// #include <cub/cub.cuh>\n"              // comments do not count
                                             "/* #include <cutlass/gemm.h>\n"
                                             "   #include <cute/tensor.hpp> */\n"
                                             "const char* s = \"// not a comment\";\n"
                                             "  #  include   < thrust/sort.h >\n"         // spacing does not hide it
                                             "#include \"cublas_v2.h\"\n"                // nor quotes
                                             "#include <curand.h>\n"                     // cuRAND's host API
                                             "#include \"helpers.cuh\"\n"
                                             "int n = 1'000; // #include <Eigen/Dense>\n");  // a digit separator
    folder.write("helpers.cuh", "#pragma once\n#include <cub/block/block_reduce.cuh>\n");
    const CallCheck check = check_solution_includes({kernels}, kPolicy);
    ASSERT_TRUE(check.error.empty()) << check.error;
    const std::string message = check.describe();
    ASSERT_EQ(check.refused.size(), 4u) << message;
    EXPECT_EQ(check.refused[0].library, "Thrust");
    EXPECT_EQ(check.refused[0].where, "kernels.cu:8: #  include   < thrust/sort.h >");
    EXPECT_EQ(check.refused[1].library, "cuBLAS");
    EXPECT_EQ(check.refused[1].where, "kernels.cu:9: #include \"cublas_v2.h\"");
    EXPECT_EQ(check.refused[2].library, "cuRAND");
    EXPECT_EQ(check.refused[3].library, "CUB");  // read from the student's own header
    EXPECT_EQ(check.refused[3].where, "helpers.cuh:2: #include <cub/block/block_reduce.cuh>");
    EXPECT_NE(message.find("includes \"cublas_v2.h\": it uses cuBLAS, a library that computes the result for you"),
              std::string::npos) << message;
}

TEST(CallPolicy, TheLibraryRuleThatNamesAHeaderIsTheMostPrecise) {
    SourceFolder folder;
    const std::string source = folder.write("a.cu", "#include <cublasLt.h>\n#include <cublasdx.hpp>\n"
                                                    "#include </usr/local/cuda/include/thrust/sort.h>\n");
    const CallCheck check = check_solution_includes({source}, kPolicy);
    ASSERT_EQ(check.refused.size(), 3u) << check.describe();
    EXPECT_EQ(check.refused[0].library, "cuBLASLt");
    EXPECT_EQ(check.refused[1].library, "cuBLASDx");
    EXPECT_EQ(check.refused[2].library, "Thrust");  // a path ending in thrust/...
}

// No starter or reference of any lab may trip the include check (the call check proper runs on their
// objects in each lab's own self-checks).
TEST(CallPolicy, NoStarterOrReferenceIncludesARefusedHeader) {
    int checked = 0;
    for (const auto& lab : fs::directory_iterator(fs::path(GPULAB_SOURCE_DIR) / "labs")) {
        if (!fs::exists(lab.path() / "lab.json")) continue;
        const auto config = gpulab::load_json_file((lab.path() / "lab.json").string());
        for (const char* kind : {"starter", "reference"}) {
            std::vector<std::string> sources;
            for (const auto& file : config.at("sources"))
                sources.push_back(
                    (fs::path(GPULAB_SOURCE_DIR) / kind / lab.path().filename() / file.get<std::string>()).string());
            const CallCheck check = check_solution_includes(sources, kPolicy);
            EXPECT_TRUE(check.passed()) << kind << " of " << lab.path().filename() << ":\n" << check.describe();
            ++checked;
        }
    }
    EXPECT_GE(checked, 2);
}

}  // namespace
