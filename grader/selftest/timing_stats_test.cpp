#include "gpulab/timing.h"

#include <gtest/gtest.h>

TEST(TimingStats, MedianAndSpreadOfSamples) {
    gpulab::Samples s;
    s.ms = {5, 1, 3, 2, 4};
    EXPECT_DOUBLE_EQ(s.median(), 3);
    EXPECT_DOUBLE_EQ(s.quantile(0.25), 2);
    EXPECT_DOUBLE_EQ(s.quantile(0.75), 4);
    EXPECT_DOUBLE_EQ(s.relative_spread(), 1.0 / 3.0);
    s.ms = {2, 2, 2, 2};
    EXPECT_DOUBLE_EQ(s.relative_spread(), 0);
}
