#include "lib/proteins/paired.h"

#include <cmath>

#include <gtest/gtest.h>

#include "lib/proteins/contacts.h"

namespace potts::proteins {
namespace {

arma::mat symmetric(arma::uword L, const std::vector<std::tuple<int, int, double>>& entries) {
  arma::mat s(L, L, arma::fill::zeros);
  for (const auto& [i, j, v] : entries) s(i, j) = s(j, i) = v;
  return s;
}

// Five columns, contacts (1,2) and (4,5) (columns 0-1 and 3-4), top 40 %:
// k = 2 pairs, k = 1 without a residue. A's best pair is the contact 0-1,
// its second 2-3 (no contact); B ranks only non-contacts first. Without
// column 0 or 1, A's best is 2-3 (d_r = 0); without 2, 3 or 4 it is 0-1
// (d_r = 1). So d = 1/2 − 0, the d_r are 0, 0, 1, 1, 1 and the jackknife
// s.e. is sqrt(4/5 · (2 · 0.6² + 3 · 0.4²)) = sqrt(0.96).
struct Constructed {
  std::vector<int> numbers = {1, 2, 3, 4, 5};
  std::set<std::pair<int, int>> truth = {{1, 2}, {4, 5}};
  arma::mat a = symmetric(5, {{0, 1, 10},
                              {2, 3, 9},
                              {0, 2, 1},
                              {0, 3, 2},
                              {0, 4, 3},
                              {1, 2, 4},
                              {1, 3, 5},
                              {1, 4, 6},
                              {2, 4, 7},
                              {3, 4, 0.5}});
  arma::mat b = symmetric(
      5,
      {{2, 4, 10}, {1, 3, 9}, {0, 2, 8}, {0, 3, 7}, {1, 4, 6}, {0, 4, 5}, {1, 2, 4}, {2, 3, 3}, {0, 1, 1}, {3, 4, 2}});
};

TEST(PairedPrecision, ConstructedCaseWithKnownAnswer) {
  Constructed c;
  const auto p = paired_precision_difference({c.a}, {c.b}, c.numbers, c.truth, 0.4, 1);
  EXPECT_DOUBLE_EQ(p.difference, 0.5);
  EXPECT_EQ(p.leave_one_out, (std::vector<double>{0, 0, 1, 1, 1}));
  EXPECT_NEAR(p.jackknife_se, std::sqrt(0.96), 1e-15);
  EXPECT_EQ(p.seeds_se, 0.0);
  EXPECT_NEAR(p.standard_error, std::sqrt(0.96), 1e-15);
}

// Fits of A at precisions 1/2 and 0: their sample variance is 1/8, so the
// seeds' s.e. is sqrt(1/8 / 2) = 1/4, and d is the mean 1/4 minus B's 0.
TEST(PairedPrecision, SeedSpreadAdds) {
  Constructed c;
  const auto p = paired_precision_difference({c.a, c.b}, {c.b}, c.numbers, c.truth, 0.4, 1);
  EXPECT_DOUBLE_EQ(p.difference, 0.25);
  EXPECT_DOUBLE_EQ(p.seeds_se, 0.25);
  EXPECT_NEAR(p.standard_error, std::hypot(p.jackknife_se, 0.25), 1e-15);
}

TEST(PairedPrecision, IdenticalPredictorsDifferByNothing) {
  arma::arma_rng::set_seed(3);
  arma::mat s = arma::randu<arma::mat>(12, 12);
  s = s + s.t();
  std::vector<int> numbers;
  for (int k = 0; k < 12; ++k) numbers.push_back(k + 1);
  const auto p = paired_precision_difference({s}, {s}, numbers, {{1, 5}, {2, 9}, {3, 12}, {4, 10}}, 1.0, 2);
  EXPECT_EQ(p.difference, 0.0);
  EXPECT_EQ(p.standard_error, 0.0);
}

// Every d_r against a recount by precision_at on the matrices with row and
// column r removed, and the jackknife formula written out; random scores,
// residue numbers with a gap, separation 6 as the claims use.
TEST(PairedPrecision, LeaveOneOutEqualsARecountOnReducedMatrices) {
  arma::arma_rng::set_seed(11);
  const arma::uword L = 30;
  std::vector<int> numbers;
  for (arma::uword k = 0; k < L; ++k) numbers.push_back(int(k) + 5 + (k >= 14 ? 3 : 0));
  std::set<std::pair<int, int>> truth;
  arma::mat a = arma::randu<arma::mat>(L, L), b = arma::randu<arma::mat>(L, L);
  a = a + a.t();
  b = b + b.t();
  for (arma::uword x = 0; x < L; ++x)
    for (arma::uword y = x + 6; y < L; ++y)
      if ((x * 7 + y * 3) % 5 == 0) {
        truth.insert({numbers[x], numbers[y]});
        a(x, y) += 0.8;  // A finds more contacts than B
        a(y, x) += 0.8;
      }
  for (double fraction : {1.0, 0.5, 0.2}) {
    const auto p = paired_precision_difference({a}, {b}, numbers, truth, fraction, 6);
    const auto k = std::size_t(fraction * L), k1 = std::size_t(fraction * (L - 1));
    EXPECT_DOUBLE_EQ(p.difference, precision_at(a, numbers, truth, k, 6) - precision_at(b, numbers, truth, k, 6));
    double mean = 0.0;
    std::vector<double> d;
    for (arma::uword r = 0; r < L; ++r) {
      arma::mat ar = a, br = b;
      ar.shed_row(r);
      ar.shed_col(r);
      br.shed_row(r);
      br.shed_col(r);
      std::vector<int> nr = numbers;
      nr.erase(nr.begin() + long(r));
      d.push_back(precision_at(ar, nr, truth, k1, 6) - precision_at(br, nr, truth, k1, 6));
      EXPECT_DOUBLE_EQ(p.leave_one_out[r], d.back()) << "fraction " << fraction << ", r = " << r;
      mean += d.back() / double(L);
    }
    double ss = 0.0;
    for (double x : d) ss += (x - mean) * (x - mean);
    EXPECT_NEAR(p.jackknife_se, std::sqrt(double(L - 1) / double(L) * ss), 1e-14);
    EXPECT_GT(p.difference, 0.0) << "fraction " << fraction;  // the planted signal
    EXPECT_GT(p.jackknife_se, 0.0);
  }
}

TEST(PairedPrecision, RefusesEmptyPredictorsAndBadFractions) {
  Constructed c;
  EXPECT_THROW(paired_precision_difference({}, {c.b}, c.numbers, c.truth, 0.4, 1), std::invalid_argument);
  EXPECT_THROW(paired_precision_difference({c.a}, {c.b}, c.numbers, c.truth, 0.0, 1), std::invalid_argument);
  EXPECT_THROW(paired_precision_difference({c.a}, {c.b}, c.numbers, c.truth, 0.1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace potts::proteins
