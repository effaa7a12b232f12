#include "gpulab/test_id.h"

#include <gtest/gtest.h>

TEST(TestId, StripsInstantiationAndParameter) {
    EXPECT_EQ(gpulab::test_id_of("Sizes/Step.MatchesOracle/M33_r0p25"), "Step.MatchesOracle");
    EXPECT_EQ(gpulab::test_id_of("Stability.ConservesHeat"), "Stability.ConservesHeat");
    EXPECT_EQ(gpulab::test_id_of("Starts/Solve.MatchesOracle/gaussian"), "Solve.MatchesOracle");
}
