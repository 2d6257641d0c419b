// Contact predictors (predictors.h): factored attention's couplings, every
// layer's attention map of a vanilla transformer, freecontact's outputs.
#include "lib/proteins/predictors.h"

#include <gtest/gtest.h>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "lib/proteins/contacts.h"

namespace potts::proteins {
namespace {

// Factored attention's block W_ij = A_ij V: its gauge-fixed Frobenius norm
// is |A_ij| times that of V, so the score of (i, j) is
// (|A_ij| + |A_ji|)/2 · ‖P V P‖ over the amino-acid states (P centres).
TEST(FactoredCouplings, ScoreIsTheAttentionWeightTimesTheValueNorm) {
  const arma::uword L = 6, q = 5;
  arma::arma_rng::set_seed(3);
  arma::mat A = arma::randn(L, L), V = arma::randn(q, q);
  A.diag().zeros();
  const arma::mat W = factored_couplings(A, V);
  ASSERT_EQ(W.n_rows, L * q);
  EXPECT_EQ(W(2 * q + 1, 4 * q + 3), A(2, 4) * V(1, 3));
  EXPECT_EQ(arma::accu(arma::abs(W.submat(q, q, 2 * q - 1, 2 * q - 1))), 0.0);  // diagonal block
  arma::mat Vc = V;
  Vc.each_col() -= arma::mean(Vc, 1);
  Vc.each_row() -= arma::mean(Vc, 0);
  const double v = arma::norm(Vc.submat(0, 0, q - 2, q - 2), "fro");
  const arma::mat F = frobenius_scores(W, q);
  for (arma::uword i = 0; i < L; ++i)
    for (arma::uword j = 0; j < L; ++j)
      EXPECT_NEAR(F(i, j), i == j ? 0.0 : (std::abs(A(i, j)) + std::abs(A(j, i))) / 2 * v, 1e-12);
}

TEST(Symmetrised, MeanOfMapAndTransposeWithZeroDiagonal) {
  arma::mat M = {{5, 1, 2}, {3, 5, 4}, {0, 8, 5}};
  const arma::mat S = symmetrised(M);
  EXPECT_TRUE(S.is_symmetric());
  EXPECT_EQ(S(0, 1), 2.0);
  EXPECT_EQ(S(2, 1), 6.0);
  EXPECT_EQ(S(1, 1), 0.0);
}

nn::SequenceSet random_sequences(arma::uword M, arma::uword L, int q, std::uint64_t seed) {
  Rng rng(seed, 0);
  nn::SequenceSet s;
  s.M = M;
  s.L = L;
  for (arma::uword k = 0; k < M * L; ++k) s.s.push_back(int(rng.below(q)));
  return s;
}

// Each layer's map has rows that are averages of softmax rows: non-negative,
// summing to one. The mean of the last two must give back the model's own
// map, and a layer made uniform by hand must come out uniform.
TEST(VanillaLayerMaps, EveryLayerIsAnAttentionMapAndTheLastTwoAverageToTheModelsMap) {
  nn::TransformerOptions o;
  o.L = 7;
  o.C = 4;
  o.d = 6;
  o.ffn_width = 12;
  o.layers = 3;
  nn::VanillaTransformer model(o);
  model.initialise(5);
  const nn::SequenceSet test = random_sequences(9, o.L, int(o.C), 8);
  const std::vector<arma::mat> maps = vanilla_layer_maps(model, test);
  ASSERT_EQ(maps.size(), 3u);
  for (const arma::mat& P : maps) {
    EXPECT_TRUE(arma::approx_equal(arma::sum(P, 1), arma::ones(o.L), "absdiff", 1e-12));
    EXPECT_GE(P.min(), -1e-12);
  }
  // The layers differ (a truncation that ignored its depth would repeat one).
  EXPECT_GT(arma::abs(maps[1] - maps[2]).max(), 1e-6);
  EXPECT_GT(arma::abs(maps[0] - maps[1]).max(), 1e-6);
  const arma::mat own = model.evaluate(test).attention_map;
  EXPECT_TRUE(arma::approx_equal((maps[1] + maps[2]) / 2, own, "absdiff", 1e-12));

  // An independent check of the middle layer: with zero query and key
  // weights its scores are all equal, so its attention is uniform, 1/L,
  // while the layers around it are not.
  model.w.blocks[1].Wq.zeros();
  model.w.blocks[1].Wk.zeros();
  const std::vector<arma::mat> flat = vanilla_layer_maps(model, test);
  EXPECT_LT(arma::abs(flat[1] - 1.0 / double(o.L)).max(), 1e-12);
  EXPECT_GT(arma::abs(flat[0] - 1.0 / double(o.L)).max(), 1e-3);
  EXPECT_GT(arma::abs(flat[2] - 1.0 / double(o.L)).max(), 1e-3);

  // A one-layer model's only map is its own.
  o.layers = 1;
  nn::VanillaTransformer one(o);
  one.initialise(6);
  const std::vector<arma::mat> single = vanilla_layer_maps(one, test);
  ASSERT_EQ(single.size(), 1u);
  EXPECT_TRUE(arma::approx_equal(single[0], one.evaluate(test).attention_map, "absdiff", 0.0));
}

TEST(Freecontact, ReadsEvfoldByTheCorrectedNormAndPsicovByItsScore) {
  const arma::mat E =
      parse_freecontact("1 K 2 L 0.3 3.5\n1 K 4 V 0.9 1.5\n2 L 3 V 0.1 -0.5\n", "evfold.txt", 4, "evfold");
  EXPECT_EQ(E(0, 1), 3.5);
  EXPECT_EQ(E(1, 0), 3.5);
  EXPECT_EQ(E(3, 0), 1.5);
  EXPECT_EQ(E(1, 2), -0.5);
  EXPECT_EQ(E(0, 2), -1.5);  // not listed: below every listed pair
  EXPECT_EQ(E(2, 2), 0.0);
  const arma::mat P = parse_freecontact("3 1 0 8 10.5\n2 4 0 8 9.25\n", "psicov.txt", 4, "psicov");
  EXPECT_EQ(P(0, 2), 10.5);
  EXPECT_EQ(P(3, 1), 9.25);
  EXPECT_EQ(P(0, 1), 8.25);
}

TEST(Freecontact, MalformedOutputIsAnErrorNamingTheLine) {
  auto message = [](const std::string& text, const std::string& format) {
    try {
      parse_freecontact(text, "out.txt", 4, format);
    } catch (const StageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("1 K 2 L 0.3 3.5\n1 K 2 L 0.3\n", "evfold").find("out.txt: line 2"), std::string::npos);
  EXPECT_NE(message("1 K 5 L 0.3 3.5\n", "evfold").find("1..4"), std::string::npos);
  EXPECT_NE(message("2 K 2 L 0.3 3.5\n", "evfold").find("two distinct"), std::string::npos);
  EXPECT_NE(message("1 2 0 8 nan\n", "psicov").find("line 1"), std::string::npos);
  EXPECT_NE(message("1 2 0 8 1.0 extra\n", "psicov").find("line 1"), std::string::npos);
  EXPECT_NE(message("", "psicov").find("no pair"), std::string::npos);
  EXPECT_NE(message("1 2 0 8 1\n", "plmc").find("evfold"), std::string::npos);
}

}  // namespace
}  // namespace potts::proteins
