// The full pseudo-likelihood baseline with its penalty chosen by validation
// (lib/studies/recovery.h): the choice uses held-out training sequences only,
// and a mis-tuned penalty (none, or far too strong) gives a larger test gap
// than the chosen one, so a comparison against the tuned baseline is a
// comparison that can be lost.
#include "lib/studies/recovery.h"

#include <gtest/gtest.h>

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
  const arma::imat all = run_chain(d.truth, p, 5, "");
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

TEST(PlmValidation, BadSettingsAreAnError) {
  const Data d = make_data();
  EXPECT_THROW(choose_plm_penalty(d.train, d.truth.C(), {}, 10, LbfgsOptions{}, nullptr), StageError);
  EXPECT_THROW(choose_plm_penalty(d.train, d.truth.C(), {1e-3}, 1, LbfgsOptions{}, nullptr), StageError);
}

}  // namespace
}  // namespace potts
