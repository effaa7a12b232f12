// The timed launches' access analyses in forked children (access_in_children.h): each row comes back whole and in
// order, "not known" (NaN) survives the trip, and a child that dies costs only its own row.
#include "gpulab/access_in_children.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cmath>
#include <string>

namespace gpulab {
namespace {

AccessFigures row(std::size_t i) {
    AccessFigures f;
    f.suite = "Suite" + std::to_string(i);
    f.call = "launch " + std::to_string(i);
    f.available = true;
    f.load_sector_use = 0.25 * double(i);
    f.store_sector_use = std::nan("");
    f.occupancy.limiter = "shared memory";
    f.diagnoses.push_back({"bank-conflicts", "31 extra turns", {{"tile.cu:57  v += tile[tx][ty];", "31 turns"}}});
    return f;
}

AccessFigures failed(std::size_t i, const std::string& why) {
    AccessFigures f;
    f.suite = "Suite" + std::to_string(i);
    f.why = why;
    return f;
}

TEST(AccessInChildren, EveryRowComesBackWholeAndInOrder) {
    const std::vector<AccessFigures> rows = analyze_in_children(5, row, failed, 2);
    ASSERT_EQ(rows.size(), 5u);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i].suite, "Suite" + std::to_string(i));
        EXPECT_TRUE(rows[i].available) << rows[i].why;
        EXPECT_DOUBLE_EQ(rows[i].load_sector_use, 0.25 * double(i));
        EXPECT_TRUE(std::isnan(rows[i].store_sector_use)) << "NaN (not known) must not come back as a number";
        EXPECT_EQ(rows[i].occupancy.limiter, "shared memory");
        ASSERT_EQ(rows[i].diagnoses.size(), 1u);
        ASSERT_EQ(rows[i].diagnoses[0].lines.size(), 1u);
        EXPECT_EQ(rows[i].diagnoses[0].lines[0].quoted, "tile.cu:57  v += tile[tx][ty];");
    }
}

TEST(AccessInChildren, AChildThatDiesCostsOnlyItsRow) {
    const std::vector<AccessFigures> rows = analyze_in_children(3, [](std::size_t i) {
        if (i == 1) std::raise(SIGSEGV);  // a student's kernel that crashed the process
        return row(i);
    }, failed, 3);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_TRUE(rows[0].available);
    EXPECT_TRUE(rows[2].available);
    EXPECT_FALSE(rows[1].available);
    EXPECT_NE(rows[1].why.find("signal " + std::to_string(SIGSEGV)), std::string::npos) << rows[1].why;
}

}  // namespace
}  // namespace gpulab
