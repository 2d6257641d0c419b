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

TEST(Frobenius, GaugeInvariantGapExcludedSymmetric) {
  const arma::uword L = 5, q = 4;  // states 0-2 amino acids, 3 the gap
  arma::arma_rng::set_seed(5);
  arma::mat W(L * q, L * q, arma::fill::zeros);
  arma::mat block = arma::randn(q, q);
  W.submat(1 * q, 3 * q, 1 * q + q - 1, 3 * q + q - 1) = block;
  W.submat(3 * q, 1 * q, 3 * q + q - 1, 1 * q + q - 1) = block.t();
  const arma::mat F = frobenius_scores(W, q);
  EXPECT_GT(F(1, 3), 0.0);
  EXPECT_EQ(F(1, 3), F(3, 1));
  EXPECT_EQ(arma::accu(F) - 2 * F(1, 3), 0.0);  // every other pair is zero
  // Adding u_i(a) + v_j(b) to a block (a change of gauge) leaves the score.
  arma::mat G = W;
  arma::vec u = arma::randn(q), v = arma::randn(q);
  for (arma::uword a = 0; a < q; ++a)
    for (arma::uword b = 0; b < q; ++b) G(1 * q + a, 3 * q + b) += u(a) + v(b), G(3 * q + b, 1 * q + a) += u(a) + v(b);
  EXPECT_NEAR(frobenius_scores(G, q)(1, 3), F(1, 3), 1e-12);
  // A gap-gap coupling alone: in the zero-sum gauge the block E_gg becomes
  // 1/q² on every amino-acid pair, so the 3 x 3 amino-acid part has norm
  // 3/16; with the gap kept the whole block's norm is (q − 1)/q = 3/4.
  arma::mat H(L * q, L * q, arma::fill::zeros);
  H(0 * q + 3, 2 * q + 3) = H(2 * q + 3, 0 * q + 3) = 1.0;
  EXPECT_NEAR(frobenius_scores(H, q)(0, 2), 3.0 / 16.0, 1e-15);
  EXPECT_NEAR(frobenius_scores(H, q, false)(0, 2), 3.0 / 4.0, 1e-15);
  EXPECT_THROW(frobenius_scores(arma::mat(7, 7), q), std::invalid_argument);
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
