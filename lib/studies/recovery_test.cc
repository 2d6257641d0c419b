// The penalties chosen by validation (lib/studies/recovery.h), of the full
// pseudo-likelihood baseline and of factored attention: the choice uses
// held-out training sequences only, and a mis-tuned penalty (none, or far
// too strong) gives a larger test gap than the chosen one, so a comparison
// against a tuned estimator is a comparison that can be lost.
#include "lib/studies/recovery.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lib/core/error.h"
#include "lib/potts/calibration.h"
#include "lib/potts/model.h"

namespace potts {
namespace {

struct Data {
  PottsModel truth;
  arma::imat train, test;
};

// L = 6, C = 4, Gaussian U, 200 training and 400 test sequences, 20 sweeps
// apart: few sequences for 6 * 4 + 15 * 16 = 264 parameters, so the penalty
// matters.
Data make_data() {
  Data d;
  d.truth = make_potts_model(6, 4, ColourKind::kGaussian, 0.8, 3);
  ChainProtocol p;
  p.burn_in_sweeps = 200;
  p.sweeps_between = 20;
  p.n_saved = 600;
  const arma::imat all = run_chain(d.truth, p, 5);
  d.train = all.rows(0, 199);
  d.test = all.rows(200, 599);
  return d;
}

double test_gap(const Data& d, const PlmPenalty& pen, const LbfgsOptions& o) {
  return plm_test_loss(fit_plm(d.train, d.truth.C(), pen, o).model, d.test) - optimal_test_loss(d.truth, d.test);
}

TEST(PlmValidation, ChoosesFromTheGridWithoutTestData) {
  const Data d = make_data();
  LbfgsOptions o;
  o.max_iterations = 3000;
  const std::vector<double> grid = {0.0, 1e-4, 1e-3, 1e-2, 1e-1};
  std::vector<double> losses;
  const PlmPenalty chosen = choose_plm_penalty(d.train, d.truth.C(), grid, 10, o, &losses);
  ASSERT_EQ(losses.size(), grid.size());
  EXPECT_EQ(chosen.lambda_h, chosen.lambda_W);
  std::size_t k = 0;
  while (grid[k] != chosen.lambda_W) ++k;
  for (double l : losses) EXPECT_LE(losses[k], l);
  // Neither end of the grid: unpenalised overfits, 0.1 underfits.
  EXPECT_GT(chosen.lambda_W, 0.0);
  EXPECT_LT(chosen.lambda_W, 1e-1);
  // The mis-tuned penalties lose on the test set against the chosen one.
  const double g = test_gap(d, chosen, o);
  EXPECT_LT(g, test_gap(d, PlmPenalty{0.0, 0.0}, o));
  EXPECT_LT(g, test_gap(d, PlmPenalty{1e-1, 1e-1}, o));
}

// Factored attention has 6 * 6 + 4 * 4 = 52 parameters here: far fewer
// than the data, so validation must not pick the strongest penalty, which
// shrinks A and V towards zero (an underfit whose test gap is larger).
TEST(FactoredValidation, ChoosesFromTheGridAndBeatsAnUnderfit) {
  const Data d = make_data();
  const arma::uword C = d.truth.C();
  LbfgsOptions o;
  o.max_iterations = 3000;
  PlmModel held_in;
  choose_plm_penalty(d.train, C, {1e-4, 1e-3}, 10, o, nullptr, &held_in);
  EXPECT_EQ(held_in.L, d.truth.L());
  FactoredFitOptions fo;
  fo.lbfgs = o;
  fo.lambda = std::nan("");  // ignored: every lambda comes from the grid
  const std::vector<double> grid = {1e-6, 1e-4, 1e-2, 1.0};
  std::vector<double> losses;
  const double chosen = choose_factored_penalty(d.train, C, grid, 10, fo, held_in, &losses);
  ASSERT_EQ(losses.size(), grid.size());
  std::size_t k = 0;
  while (grid[k] != chosen) ++k;
  for (double l : losses) EXPECT_LE(losses[k], l);
  EXPECT_LT(chosen, 1.0);
  // Refitted on all training data from the same start, the chosen lambda
  // beats the underfit on the test set.
  const nn::SequenceSet tr = nn::to_sequence_set(d.train, C, "train"), te = nn::to_sequence_set(d.test, C, "test");
  arma::mat A0, V0;
  split_plm_into_factored(fit_plm(d.train, C, PlmPenalty{1e-4, 1e-4}, o).model, A0, V0);
  auto gap = [&](double lambda) {
    FactoredFitOptions f = fo;
    f.lambda = lambda;
    const FactoredFit fit = fit_factored_attention_from(tr, C, A0, V0, f);
    return factored_test_loss(fit.A, fit.V, te, C) - optimal_test_loss(d.truth, d.test);
  };
  EXPECT_LT(gap(chosen), gap(1.0));
}

// evaluate_recovery with both grids: every factored fit uses the chosen
// lambda, and both validation curves are reported.
TEST(FactoredValidation, RecoveryUsesTheChosenPenalty) {
  const Data d = make_data();
  RecoveryOptions o;
  o.seeds = 2;
  o.factored.lbfgs.max_iterations = 2000;
  o.factored.lambda = std::nan("");
  o.plm_lbfgs.max_iterations = 2000;
  o.plm_lambda_grid = {1e-4, 1e-2};
  o.fa_lambda_grid = {1e-5, 1e-3, 1.0};
  const RecoveryResult r = evaluate_recovery(d.train, d.test, d.truth, o, 3);
  EXPECT_EQ(r.fa_validation_losses.size(), 3u);
  EXPECT_EQ(r.plm_validation_losses.size(), 2u);
  EXPECT_TRUE(r.fa_lambda == 1e-5 || r.fa_lambda == 1e-3 || r.fa_lambda == 1.0);
  // No grid and no lambda: an error, not a silent NaN penalty.
  o.fa_lambda_grid.clear();
  EXPECT_THROW(evaluate_recovery(d.train, d.test, d.truth, o, 3), StageError);
}

TEST(PlmValidation, BadSettingsAreAnError) {
  const Data d = make_data();
  EXPECT_THROW(choose_plm_penalty(d.train, d.truth.C(), {}, 10, LbfgsOptions{}, nullptr), StageError);
  EXPECT_THROW(choose_plm_penalty(d.train, d.truth.C(), {1e-3}, 1, LbfgsOptions{}, nullptr), StageError);
  EXPECT_THROW(choose_plm_penalty(d.train, d.truth.C(), {1e-3, 1e-4}, 10, LbfgsOptions{}, nullptr), StageError);
  EXPECT_THROW(
      choose_factored_penalty(d.train, d.truth.C(), {}, 10, FactoredFitOptions{}, make_plm_model(6, 4), nullptr),
      StageError);
}

}  // namespace
}  // namespace potts
