// Tests of lib/nn's models: every parameter of both full models against
// finite differences (relative error below 1e-6), the full-batch objective,
// the exact identities of factored attention (with A = beta J, V = U its
// conditionals are eq. 5 to 1e-12, and its loss summed over all positions is
// the Potts pseudo-likelihood objective), and the float path against the
// double one.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "lib/nn/factored_attention.h"
#include "lib/nn/gradient_check.h"
#include "lib/nn/transformer.h"
#include "lib/potts/model.h"

namespace potts {
namespace nn {
namespace {

using gradient_check::fd_error;
using gradient_check::gaussian;
using gradient_check::kTol;

SequenceSet random_sequences(arma::uword M, arma::uword L, arma::uword C, std::uint64_t seed) {
  Rng rng(seed, 99);
  SequenceSet s;
  s.M = M;
  s.L = L;
  s.s.resize(M * L);
  for (auto& x : s.s) x = int(rng.below(C));
  return s;
}

// Every parameter of a model against finite differences of the summed loss.
void check_model_gradients(MlmModel& model, const Batch& batch) {
  model.zero_gradients();
  model.forward_backward(batch, true);
  for (auto& p : model.parameters()) {
    const arma::mat g = *p.grad;
    const double err = fd_error(*p.value, g, [&] { return model.forward_backward(batch, false); });
    EXPECT_LT(err, kTol) << model.kind() << " parameter " << p.name;
  }
}

TEST(Models, FactoredAttentionGradients) {
  const arma::uword L = 6, C = 4;
  SequenceSet data = random_sequences(5, L, C, 1);
  FactoredAttention m(L, C);
  m.initialise(0.5, 0.5, 3);
  Batch b{&data, {0, 2, 3, 4}, {kAllPositions, 1, kAllPositions, 5}};
  EXPECT_EQ(b.predictions(), 2 * L + 2);
  check_model_gradients(m, b);
}

// The full-batch objective: eq. 3 over every position times M L / norm,
// plus l2 |theta|^2, and its gradient against finite differences.
TEST(Models, FullBatchObjective) {
  const arma::uword L = 6, C = 4;
  SequenceSet data = random_sequences(7, L, C, 11);
  FactoredAttention m(L, C);
  m.initialise(0.5, 0.5, 4);
  const double norm = double(data.M), l2 = 0.03;
  FullBatchObjective f(m, data, norm, l2);
  arma::mat theta = pack_parameters(m);
  arma::vec grad;
  const double value = f(theta, &grad);
  const double eps3 = m.evaluate(data).test_loss;
  EXPECT_NEAR(f.mean_loss(), eps3, 1e-13);
  EXPECT_NEAR(value, eps3 * double(data.M * L) / norm + l2 * arma::accu(theta % theta), 1e-12);
  EXPECT_EQ(f(theta, nullptr), value);  // no gradient asked: the same value
  EXPECT_LT(fd_error(theta, grad, [&] { return f(theta, nullptr); }), kTol);
}

class TransformerGradients : public ::testing::TestWithParam<std::tuple<int, std::string, bool>> {};

// A small transformer (L 5, C 4, d 6, FFN 12) with `layers` layers.
TransformerOptions small_transformer(int layers) {
  TransformerOptions o;
  o.L = 5;
  o.C = 4;
  o.d = 6;
  o.ffn_width = 12;
  o.layers = layers;
  return o;
}

TEST_P(TransformerGradients, MatchFiniteDifferences) {
  TransformerOptions o = small_transformer(std::get<0>(GetParam()));
  o.head = std::get<1>(GetParam());
  o.output_projection = std::get<2>(GetParam());
  VanillaTransformer m(o);
  m.initialise(11);
  // non-trivial biases and LayerNorm parameters, so every path is exercised
  Rng rng(12, 0);
  for (auto& p : m.parameters())
    if (p.value->n_cols == 1) *p.value += gaussian(p.value->n_rows, 1, rng, 0.3);
  SequenceSet data = random_sequences(4, o.L, o.C, 2);
  Batch b{&data, {0, 1, 3, 1}, {2, 0, 4, kAllPositions}};
  check_model_gradients(m, b);
}
INSTANTIATE_TEST_SUITE_P(Variants, TransformerGradients,
                         ::testing::Values(std::make_tuple(1, std::string("linear"), true),
                                           std::make_tuple(3, std::string("linear"), true),
                                           std::make_tuple(2, std::string("tutorial"), true),
                                           std::make_tuple(1, std::string("linear"), false)));

TEST(Models, VanillaEvaluationAttentionRowsAreDistributions) {
  const TransformerOptions o = small_transformer(3);
  VanillaTransformer m(o);
  m.initialise(5);
  SequenceSet t = random_sequences(7, o.L, o.C, 4);
  Evaluation e = m.evaluate(t);
  EXPECT_LT(arma::abs(arma::sum(e.attention_map, 1) - 1.0).max(), 1e-12);
  // test loss = mean over every (sequence, position)
  double total = 0.0;
  for (arma::uword mu = 0; mu < t.M; ++mu)
    for (int i = 0; i < int(o.L); ++i) {
      Batch b{&t, {mu}, {i}};
      total += m.forward_backward(b, false);
    }
  EXPECT_NEAR(e.test_loss, total / double(t.M * o.L), 1e-12);
}

// ---------------------------------------------------------------------------
// The float path against the double one (same parameters, same batch). Float
// rounds at u = 6e-8 relative; a loss or gradient entry is built from at most
// a few hundred rounded operations, so its relative error is far below the
// tolerances (1e-5 for the summed loss, 1e-4 for the gradient in Frobenius
// norm, 1e-5 for the evaluation). A parameter whose exact gradient vanishes
// (the key bias b_k) carries only rounding noise, so each gradient is
// compared against max(its norm, 1% of the whole gradient's norm). A missing
// or wrong term in either path is O(1).
void check_float_matches_double(MlmModel& dbl, MlmModel& flt, const Batch& batch, const SequenceSet& test) {
  dbl.zero_gradients();
  flt.zero_gradients();
  const double ld = dbl.forward_backward(batch, true), lf = flt.forward_backward(batch, true);
  EXPECT_NEAR(lf, ld, 1e-5 * ld) << dbl.kind();
  std::vector<Param> pd = dbl.parameters(), pf = flt.parameters();
  ASSERT_EQ(pd.size(), pf.size());
  double total = 0.0;
  for (const Param& p : pd) total += arma::accu(arma::square(*p.grad));
  for (std::size_t k = 0; k < pd.size(); ++k) {
    const double scale = std::max(arma::norm(*pd[k].grad, "fro"), 1e-2 * std::sqrt(total));
    EXPECT_LT(arma::norm(*pf[k].grad - *pd[k].grad, "fro") / scale, 1e-4) << dbl.kind() << " " << pd[k].name;
  }
  const Evaluation ed = dbl.evaluate(test), ef = flt.evaluate(test);
  EXPECT_NEAR(ef.test_loss, ed.test_loss, 1e-5 * ed.test_loss);
  EXPECT_LT(arma::abs(ef.attention_map - ed.attention_map).max(), 1e-5);
}

TEST(FloatPath, FactoredAttentionMatchesDouble) {
  const arma::uword L = 20, C = 20;
  SequenceSet data = random_sequences(40, L, C, 3);
  FactoredAttention d(L, C), f(L, C, Precision::kFloat);
  d.initialise(0.3, 0.5, 4);
  f.A = d.A;
  f.V = d.V;
  Batch b{&data, {}, {}};
  for (arma::uword m = 0; m < data.M; ++m) {
    b.rows.push_back(m);
    b.masked.push_back(m % 3 == 0 ? int(m % L) : kAllPositions);
  }
  check_float_matches_double(d, f, b, data);
}

TEST(FloatPath, VanillaTransformerMatchesDouble) {
  for (int layers : {1, 3})
    for (const char* head : {"linear", "tutorial"}) {
      TransformerOptions o;
      o.layers = layers;
      o.head = head;
      VanillaTransformer d(o), f(o, Precision::kFloat);
      d.initialise(8);
      f.initialise(8);
      SequenceSet data = random_sequences(30, o.L, o.C, 9);
      Batch b{&data, {}, {}};
      for (arma::uword m = 0; m < data.M; ++m) {
        b.rows.push_back(m);
        b.masked.push_back(int((7 * m) % o.L));
      }
      SCOPED_TRACE(std::to_string(layers) + " layers, " + head + " head");
      SequenceSet test = random_sequences(4, o.L, o.C, 10);
      check_float_matches_double(d, f, b, test);
    }
}

TEST(FloatPath, PrecisionNames) {
  EXPECT_EQ(parse_precision("float", "x"), Precision::kFloat);
  EXPECT_EQ(parse_precision("double", "x"), Precision::kDouble);
  EXPECT_THROW(parse_precision("half", "train.json"), std::exception);
}

// ---------------------------------------------------------------------------
// Factored attention = the Potts conditionals (eq. 4 = eq. 5 at A = beta J, V = U).
TEST(FactoredPotts, ReproducesEquation5) {
  const arma::uword L = 10, C = 6;
  for (ColourKind kind : {ColourKind::kGaussian, ColourKind::kIdentity, ColourKind::kGram}) {
    PottsModel pm = make_potts_model(L, C, kind, 0.7, 21);
    FactoredAttention fa(L, C);
    fa.A = pm.beta * pm.couplings_J;
    fa.V = pm.colour_similarity_U;
    SequenceSet seqs = random_sequences(20, L, C, 5);
    arma::imat x(seqs.M, L);
    for (arma::uword m = 0; m < seqs.M; ++m) {
      arma::irowvec s(L);
      for (arma::uword i = 0; i < L; ++i) x(m, i) = s(i) = seqs.row(m)[i];
      arma::mat P = fa.conditionals(seqs.row(m));
      for (arma::uword i = 0; i < L; ++i)
        EXPECT_LT(arma::abs(P.col(i) - conditional(pm, s, i)).max(), 1e-12) << to_string(kind);
    }
    // hence the test loss equals eps*
    EXPECT_NEAR(fa.evaluate(seqs).test_loss, optimal_test_loss(pm, x), 1e-12);
  }
}

// Pseudo-likelihood objective of the Potts model (Besag 1975), written from
// eq. 5 directly: -sum_mu sum_i log p(s_i^mu | s_\i^mu) with fields
// beta sum_{j != i} J_ij U[a, s_j].
double potts_negative_log_pseudo_likelihood(const arma::mat& J, const arma::mat& U, double beta, const SequenceSet& x) {
  double nlpl = 0.0;
  for (arma::uword mu = 0; mu < x.M; ++mu) {
    const int* s = x.row(mu);
    for (arma::uword i = 0; i < x.L; ++i) {
      std::vector<double> field(U.n_rows, 0.0);
      for (arma::uword a = 0; a < U.n_rows; ++a)
        for (arma::uword j = 0; j < x.L; ++j)
          if (j != i) field[a] += beta * J(i, j) * U(a, s[j]);
      double z = 0.0;
      for (double f : field) z += std::exp(f);
      nlpl += std::log(z) - field[s[i]];
    }
  }
  return nlpl;
}

TEST(FactoredPotts, SummedLossIsPseudoLikelihood) {
  const arma::uword L = 8, C = 5;
  SequenceSet data = random_sequences(30, L, C, 6);
  for (std::uint64_t seed : {31, 32}) {
    PottsModel pm = make_potts_model(L, C, ColourKind::kGaussian, 0.4, seed);
    FactoredAttention fa(L, C);
    fa.A = pm.beta * pm.couplings_J;
    fa.V = pm.colour_similarity_U;
    Batch b{&data, {}, {}};
    for (arma::uword m = 0; m < data.M; ++m) {
      b.rows.push_back(m);
      b.masked.push_back(kAllPositions);
    }
    const double pl = potts_negative_log_pseudo_likelihood(pm.couplings_J, pm.colour_similarity_U, pm.beta, data);
    EXPECT_NEAR(fa.forward_backward(b, false), pl, 1e-10 * pl);
  }
}

}  // namespace
}  // namespace nn
}  // namespace potts
