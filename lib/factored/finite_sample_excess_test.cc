// The sandwich trace at the pseudo-likelihood optimum of a small Potts
// model's data (fitted by L-BFGS from the truth; at a point that is not a
// minimum the curved scale gauge A -> cA, V -> V/c is not flat): the
// positive subspace of H has exactly the gauge-free dimension
// L(L − 1) + C² − C − 1, and tr(H⁺G) is within a factor 2 of that count
// (it equals it for a likelihood; the pseudo-likelihood's conditionals are
// not independent, so G ≠ H, but at weak coupling they nearly are). M = 4000
// sequences give G to a few per cent.
#include "lib/factored/finite_sample_excess.h"

#include <gtest/gtest.h>

#include "lib/optim/lbfgs.h"
#include "lib/train/synthetic.h"

namespace potts {
namespace {

TEST(FiniteSampleExcess, GaugeFreeRankAndATraceNearTheCount) {
  const arma::uword L = 5, C = 3;
  const PottsModel truth = make_potts_model(L, C, ColourKind::kGaussian, 0.3, 11);
  const nn::SequenceSet data = testing::gibbs_sequences(truth, 4000, 5, 200, 3);
  nn::FactoredAttention fa(L, C);
  fa.A = truth.beta * truth.couplings_J;
  fa.V = truth.colour_similarity_U;
  nn::FullBatchObjective f(fa, data, double(data.M), 0.0);
  LbfgsOptions o;
  o.gradient_tolerance = 1e-10;
  const LbfgsResult fit =
      lbfgs_minimize([&](const arma::vec& x, arma::vec& g) { return f(x, &g); }, nn::pack_parameters(fa), o);
  nn::unpack_parameters(fa, fit.x);
  const arma::mat A_fit = fa.A;
  const double d_eff = factored_d_eff(double(L), double(C));
  EXPECT_EQ(factored_d_eff(20, 20), 759);  // the paper's L = C = 20
  const FiniteSampleExcess e = finite_sample_excess(fa, data);
  EXPECT_EQ(e.rank, int(d_eff));
  EXPECT_GT(e.trace, 0.5 * d_eff);
  EXPECT_LT(e.trace, 2.0 * d_eff);
  EXPECT_NEAR(e.excess_per_position, e.trace / (2.0 * 4000 * L), 1e-15);
  // The parameters are restored.
  EXPECT_TRUE(arma::approx_equal(fa.A, A_fit, "absdiff", 0.0));
  EXPECT_LT(e.gradient_norm, 1e-8);
}

}  // namespace
}  // namespace potts
