// Contact scoring (contacts.h): the average product correction and precision
// at top k, on hand-made matrices.
#include "lib/proteins/contacts.h"

#include <gtest/gtest.h>

namespace potts::proteins {
namespace {

TEST(Apc, AMatrixThatIsAllBackgroundCorrectsToZero) {
  // S_ij = a_i a_j off the diagonal: rank one, what APC removes up to the
  // averages' own bias; a planted pair stands out after correction.
  const arma::uword L = 30;
  arma::vec a = arma::linspace(1.0, 2.0, L);
  arma::mat S = a * a.t();
  S(3, 20) = S(20, 3) = S(3, 20) + 1.0;
  const arma::mat C = apc(S);
  EXPECT_TRUE(C.is_symmetric());
  EXPECT_EQ(C(0, 0), 0.0);
  arma::uword best = C.index_max();
  EXPECT_EQ(std::min(best % L, best / L), 3u);
  EXPECT_EQ(std::max(best % L, best / L), 20u);
  // The background left is small against the planted pair.
  arma::mat rest = C;
  rest(3, 20) = rest(20, 3) = 0;
  EXPECT_LT(arma::abs(rest).max(), 0.2 * C(3, 20));
}

TEST(Precision, TopPairsAgainstTheTruthWithSeparation) {
  const std::vector<int> numbers = {5, 6, 7, 8, 20, 30};
  arma::mat S(6, 6, arma::fill::zeros);
  auto set = [&](int a, int b, double v) { S(a, b) = S(b, a) = v; };
  set(0, 1, 9.0);  // 5-6: too close (|i - j| < 6), never ranked
  set(0, 4, 5.0);  // 5-20: a contact
  set(1, 5, 4.0);  // 6-30: not a contact
  set(2, 4, 3.0);  // 7-20: a contact
  const std::set<std::pair<int, int>> truth = {{5, 20}, {7, 20}, {5, 6}};
  const auto ranked = ranked_pairs(S, numbers, 6);
  ASSERT_GE(ranked.size(), 3u);
  EXPECT_EQ(ranked[0], std::make_pair(arma::uword(0), arma::uword(4)));
  EXPECT_DOUBLE_EQ(precision_at(S, numbers, truth, 1, 6), 1.0);
  EXPECT_DOUBLE_EQ(precision_at(S, numbers, truth, 2, 6), 0.5);
  EXPECT_NEAR(precision_at(S, numbers, truth, 3, 6), 2.0 / 3.0, 1e-15);
  EXPECT_THROW(precision_at(S, numbers, truth, 100, 6), std::invalid_argument);
}

}  // namespace
}  // namespace potts::proteins
