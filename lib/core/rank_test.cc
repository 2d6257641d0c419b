// The median and Spearman's rank correlation (rank.h) against values worked
// by hand and against their defining properties.
#include "lib/core/rank.h"

#include <gtest/gtest.h>

#include "lib/core/error.h"

#include <cmath>
#include <stdexcept>

namespace potts {
namespace {

TEST(Rank, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({-1}), -1.0);
  EXPECT_THROW(median({}), StageError);
}

TEST(Rank, TiesShareTheMeanOfTheirRanks) {
  const std::vector<double> r = ranks({3.0, 1.0, 3.0, 2.0, 3.0});
  // 1.0 -> 1, 2.0 -> 2, the three 3.0 span ranks 3..5 -> 4.
  EXPECT_EQ(r, (std::vector<double>{4.0, 1.0, 4.0, 2.0, 4.0}));
}

// Without ties rho = 1 - 6 sum d^2 / (n (n^2 - 1)): x = 1..5, y ranks
// (2, 1, 4, 3, 5), sum d^2 = 4, rho = 1 - 24 / 120 = 0.8. Its t = 0.8
// sqrt(3 / 0.36) = 2.3094 on 3 d.o.f.; two-sided p = 0.10408 (t tables).
TEST(Rank, AgreesWithTheClosedFormWithoutTies) {
  const RankCorrelation c = spearman({1, 2, 3, 4, 5}, {20, 10, 40, 30, 50});
  EXPECT_NEAR(c.rho, 0.8, 1e-12);
  EXPECT_NEAR(c.p_two_sided, 0.10408, 5e-5);
  EXPECT_EQ(c.n, 5u);
}

TEST(Rank, MonotoneMapsKeepRhoAndReversalNegatesIt) {
  const std::vector<double> x = {0.3, 1.7, -2.0, 4.1, 0.9, 2.2, -0.5};
  const std::vector<double> y = {1.0, 0.2, -1.0, 3.0, 2.5, 0.1, 0.0};
  std::vector<double> ex, neg;
  for (double v : x) ex.push_back(std::exp(v));
  for (double v : y) neg.push_back(-v);
  const double rho = spearman(x, y).rho;
  EXPECT_DOUBLE_EQ(spearman(ex, y).rho, rho);
  EXPECT_DOUBLE_EQ(spearman(x, neg).rho, -rho);
  EXPECT_DOUBLE_EQ(spearman(y, x).rho, rho);
}

TEST(Rank, RefusesWhatHasNoCorrelation) {
  EXPECT_THROW(spearman({1, 2}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(spearman({1, 2, 3}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(spearman({1, 1, 1}, {1, 2, 3}), std::invalid_argument);
}

}  // namespace
}  // namespace potts
