#include "lib/core/stats.h"

#include <cmath>

#include <gtest/gtest.h>

namespace potts {
namespace {

TEST(MeanSe, MatchesTheTextbookFormula) {
  // 1, 2, 3, 4: mean 2.5, sample variance 5/3, se = sqrt(5/3 / 4).
  const MeanSe r = mean_se({1.0, 2.0, 3.0, 4.0});
  EXPECT_EQ(r.n, 4u);
  EXPECT_DOUBLE_EQ(r.mean, 2.5);
  EXPECT_DOUBLE_EQ(r.se, std::sqrt(5.0 / 3.0 / 4.0));
}

TEST(MeanSe, ConstantValuesHaveZeroError) {
  const MeanSe r = mean_se({0.5, 0.5, 0.5});
  EXPECT_DOUBLE_EQ(r.mean, 0.5);
  EXPECT_EQ(r.se, 0.0);
}

TEST(MeanSe, OneValueHasNoStandardError) {
  const MeanSe r = mean_se({3.0});
  EXPECT_DOUBLE_EQ(r.mean, 3.0);
  EXPECT_TRUE(std::isnan(r.se));
  EXPECT_TRUE(std::isnan(mean_se({}).mean));
}

TEST(Argmax, FindsThePeakAndTheFirstOfTies) {
  EXPECT_EQ(argmax({1.0, 3.0, 2.0}), 1u);
  EXPECT_EQ(argmax({5.0, 1.0, 2.0}), 0u);
  EXPECT_EQ(argmax({1.0, 2.0, 7.0}), 2u);
  EXPECT_EQ(argmax({2.0, 4.0, 4.0, 1.0}), 1u);  // ties: the smallest alpha
  EXPECT_THROW(argmax({}), std::invalid_argument);
}

}  // namespace
}  // namespace potts
