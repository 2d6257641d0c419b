// Unit tests of lib/potts/model: J and U generation, energy (eq. 1), the
// conditional (eq. 5), eps* (eq. 3), the Hamming distance and e_rec.
#include <gtest/gtest.h>

#include <cmath>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "lib/potts/model.h"

namespace potts {
namespace {

arma::imat random_sequences(arma::uword M, arma::uword L, arma::uword C, std::uint64_t seed) {
  Rng rng(seed, 99);
  arma::imat x(M, L);
  for (arma::uword m = 0; m < M; ++m)
    for (arma::uword i = 0; i < L; ++i) x(m, i) = rng.below(C);
  return x;
}

TEST(Model, CouplingsAndColourSimilarityHaveTheirShapes) {
  for (auto kind :
       {ColourKind::kIdentity, ColourKind::kGaussian, ColourKind::kGram, ColourKind::kIdentityPlusGaussian}) {
    PottsModel m = make_potts_model(7, 5, kind, 0.5, 3, 0.2);
    EXPECT_EQ(m.L(), 7u);
    EXPECT_EQ(m.C(), 5u);
    EXPECT_TRUE(m.couplings_J.is_symmetric());
    EXPECT_EQ(arma::abs(m.couplings_J.diag()).max(), 0.0);
    EXPECT_TRUE(m.colour_similarity_U.is_symmetric()) << to_string(kind);
    EXPECT_EQ(parse_colour_kind(to_string(kind)), kind);
  }
  EXPECT_TRUE(arma::approx_equal(make_potts_model(4, 3, ColourKind::kIdentity, 1, 1).colour_similarity_U,
                                 arma::mat(arma::eye(3, 3)), "absdiff", 0.0));
  // Gram matrix: positive semi-definite.
  arma::vec ev = arma::eig_sym(make_potts_model(4, 6, ColourKind::kGram, 1, 2).colour_similarity_U);
  EXPECT_GE(ev.min(), -1e-12);
  // Same seed, same model; another seed, another J.
  PottsModel a = make_potts_model(6, 4, ColourKind::kGaussian, 1, 5),
             b = make_potts_model(6, 4, ColourKind::kGaussian, 1, 5);
  EXPECT_TRUE(arma::approx_equal(a.couplings_J, b.couplings_J, "absdiff", 0.0));
  EXPECT_TRUE(arma::approx_equal(a.colour_similarity_U, b.colour_similarity_U, "absdiff", 0.0));
  EXPECT_FALSE(arma::approx_equal(a.couplings_J, make_potts_model(6, 4, ColourKind::kGaussian, 1, 6).couplings_J,
                                  "absdiff", 1e-3));
  // Off-diagonal J entries are standard normal: mean ~0, variance ~1 (L = 200: 19900 entries, se 0.007 / 0.01).
  PottsModel big = make_potts_model(200, 2, ColourKind::kIdentity, 1, 7);
  arma::vec off = big.couplings_J(arma::find(arma::trimatu(arma::ones(200, 200), 1)));
  EXPECT_NEAR(arma::mean(off), 0.0, 0.05);
  EXPECT_NEAR(arma::var(off), 1.0, 0.06);
}

TEST(Model, BadSizesAndKindsAreRejected) {
  EXPECT_THROW(make_potts_model(1, 3, ColourKind::kIdentity, 1, 1), StageError);
  EXPECT_THROW(make_potts_model(3, 1, ColourKind::kIdentity, 1, 1), StageError);
  EXPECT_THROW(parse_colour_kind("identiy"), StageError);
}

TEST(Model, EnergyIsEquationOne) {
  PottsModel m;
  m.couplings_J = {{0, 1.5, -2}, {1.5, 0, 0.5}, {-2, 0.5, 0}};
  m.colour_similarity_U = {{1, 0.3}, {0.3, -1}};
  m.beta = 2;
  arma::irowvec s = {0, 1, 1};
  // -(J01 U[0,1] + J02 U[0,1] + J12 U[1,1]) = -(1.5*0.3 - 2*0.3 - 0.5) = 0.65
  EXPECT_NEAR(energy(m, s), 0.65, 1e-15);
  // Identity U: invariant under a global permutation of colours.
  PottsModel p = make_potts_model(8, 4, ColourKind::kIdentity, 1, 3);
  arma::irowvec x = {0, 1, 2, 3, 0, 1, 1, 2}, y = x;
  for (auto& c : y) c = (c + 1) % 4;
  EXPECT_NEAR(energy(p, x), energy(p, y), 1e-12);
}

TEST(Model, ConditionalIsRatioOfBoltzmannWeights) {
  PottsModel m = make_potts_model(6, 4, ColourKind::kGaussian, 0.8, 11);
  arma::irowvec s = {0, 3, 2, 2, 1, 0};
  for (arma::uword i = 0; i < 6; ++i) {
    arma::vec p = conditional(m, s, i);
    EXPECT_NEAR(arma::accu(p), 1.0, 1e-14);
    arma::vec w(4);
    for (int a = 0; a < 4; ++a) {
      arma::irowvec t = s;
      t(i) = a;
      w(a) = std::exp(-m.beta * energy(m, t));
    }
    w /= arma::accu(w);
    EXPECT_LT(arma::abs(p - w).max(), 1e-12) << "site " << i;
  }
}

TEST(Model, OptimalTestLossIsMeanNegativeLogConditional) {
  PottsModel m = make_potts_model(5, 3, ColourKind::kGram, 1.3, 2);
  arma::imat x = random_sequences(7, 5, 3, 1);
  double expect = 0;
  for (arma::uword mu = 0; mu < 7; ++mu)
    for (arma::uword i = 0; i < 5; ++i) expect -= std::log(conditional(m, x.row(mu), i)(x(mu, i)));
  EXPECT_NEAR(optimal_test_loss(m, x), expect / 35.0, 1e-13);
}

TEST(Model, HammingDistanceMatchesPairwiseDefinition) {
  arma::imat x = {{0, 1, 2}, {0, 1, 1}, {2, 2, 2}};
  // pairs: (0,1): 1/3, (0,2): 2/3, (1,2): 3/3 -> mean 2/3
  EXPECT_NEAR(mean_hamming_distance(x), 2.0 / 3.0, 1e-15);
  arma::imat y = random_sequences(57, 9, 5, 4);
  double sum = 0;
  for (arma::uword a = 0; a < 57; ++a)
    for (arma::uword b = a + 1; b < 57; ++b) sum += arma::accu(y.row(a) != y.row(b)) / 9.0;
  EXPECT_NEAR(mean_hamming_distance(y), sum / (57.0 * 56.0 / 2.0), 1e-13);  // rounding of the 1596-term sum
  EXPECT_EQ(mean_hamming_distance(arma::imat(5, 4, arma::fill::zeros)), 0.0);
}

TEST(Model, ReconstructionErrorInvariances) {
  PottsModel m = make_potts_model(10, 2, ColourKind::kIdentity, 1, 9);
  const arma::mat& J = m.couplings_J;
  EXPECT_NEAR(reconstruction_error(J, J), 0.0, 1e-14);
  EXPECT_NEAR(reconstruction_error(J, 3.7 * J), 0.0, 1e-14);   // scale
  EXPECT_NEAR(reconstruction_error(J, -0.2 * J), 0.0, 1e-14);  // sign
  arma::mat A = J;
  A.diag().fill(100.0);  // the diagonal is ignored
  EXPECT_NEAR(reconstruction_error(J, A), 0.0, 1e-14);
  EXPECT_NEAR(reconstruction_error(J, arma::zeros(10, 10)), 1.0, 1e-15);
  // Orthogonal to J (off the diagonal): e_rec = 1.
  arma::mat B = make_potts_model(10, 2, ColourKind::kIdentity, 1, 10).couplings_J;
  double jb = arma::accu(J % B) / arma::accu(J % J);
  EXPECT_NEAR(reconstruction_error(J, B - jb * J), 1.0, 1e-12);
  double e = reconstruction_error(J, B);
  EXPECT_GT(e, 0.0);
  EXPECT_LT(e, 1.0);
  EXPECT_NEAR(reconstruction_error(J, J + 0.1 * B), reconstruction_error(J, 5.0 * (J + 0.1 * B)), 1e-14);
}

// The scale is the least-squares one, and e_rec = 1 - <J, A>^2 / (<J, J> <A, A>).
TEST(Model, ReconstructionScaleIsLeastSquares) {
  const arma::mat J = make_potts_model(10, 2, ColourKind::kIdentity, 1, 9).couplings_J;
  const arma::mat B = make_potts_model(10, 2, ColourKind::kIdentity, 1, 10).couplings_J;
  EXPECT_NEAR(reconstruct(J, -0.2 * J).scale, -5.0, 1e-13);
  const arma::mat A = J + 0.3 * B;
  const Reconstruction r = reconstruct(J, A);
  arma::mat off = arma::ones(10, 10);
  off.diag().zeros();
  const double ja = arma::accu(J % A % off), aa = arma::accu(A % A % off), jj = arma::accu(J % J % off);
  EXPECT_NEAR(r.scale, ja / aa, 1e-14);
  EXPECT_NEAR(r.error, 1.0 - ja * ja / (jj * aa), 1e-14);
  EXPECT_NEAR(r.error, arma::accu(arma::square(J - r.scale * A) % off) / jj, 1e-14);
  EXPECT_EQ(reconstruct(J, arma::zeros(10, 10)).scale, 0.0);
}

}  // namespace
}  // namespace potts
