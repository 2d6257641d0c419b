// Where does factored attention recover J? (The diversity study,
// paper/spec.md §7.)
// On one data set (training and test sequences of a known Potts model):
//
//  * factored attention, L2 penalty, full-batch L-BFGS, from `seeds` random
//    initialisations (one fit per seed) and, optionally, from the data-only
//    "plm" start (leading singular pair of the full pseudo-likelihood fit);
//  * the full pseudo-likelihood baseline (plmDCA, lib/plm/pseudo_likelihood.h).
//
// Both penalties can be chosen by validation on the training set alone, as
// users of either estimator would: every `holdout_every`-th training
// sequence is held out (rows k with k % holdout_every == holdout_every - 1),
// each lambda of a grid is fitted on the rest, the lambda with the lowest
// loss eq. 3 on the held-out rows wins (the smallest on ties; grids must
// increase), and the final fits use the whole training set. Factored
// attention's validation fits start from the data-only plm start of the
// held-in rows (the full model at its chosen penalty, split as above), so
// the validation curve does not depend on random restarts.
//
// Reported per fit: test-loss gap eps - eps* (eq. 3), e_rec of A (or of the
// projection of W onto U for the baseline), final training objective.
//
// Stall (choice): a random-start fit has stalled at a worse stationary point
// when its final training objective exceeds the lowest training objective
// reached on the same data by any factored fit (random or plm start) by more
// than `stall_tolerance` nats. J is never used to rank or select fits.
//
// Tested by //lib/studies:recovery_test.
#pragma once
#include <cstdint>
#include <vector>

#include <armadillo>

#include "lib/factored/factored_fit.h"
#include "lib/plm/pseudo_likelihood.h"
#include "lib/potts/model.h"

namespace potts {

struct RecoveryOptions {
  FactoredFitOptions factored;  // init "random" with 1 restart per seed
  int seeds = 4;
  bool plm_start = true;  // also fit factored attention from the plm split
  PlmPenalty plm_penalty{1e-4, 1e-4};
  // Non-empty: the baseline's penalty is chosen by validation instead
  // (choose_plm_penalty), lambda_h = lambda_W = each value of the grid.
  std::vector<double> plm_lambda_grid;
  // Non-empty: factored attention's lambda is chosen by validation
  // (choose_factored_penalty) and factored.lambda is not used.
  std::vector<double> fa_lambda_grid;
  arma::uword holdout_every = 10;  // of both validations
  LbfgsOptions plm_lbfgs;
  double stall_tolerance = 0.005;
};

struct FitRecord {
  std::string kind;  // "factored_random", "factored_plm_start", "plm"
  int seed = 0;
  double train_objective = 0.0, train_loss = 0.0, test_loss = 0.0, gap = 0.0, reconstruction_error = 0.0;
  double reconstruction_error_zero_sum = 0.0;  // plm only: gauge-invariant projection
  LbfgsStatus status = LbfgsStatus::kMaxIterations;
  int iterations = 0;
  bool stalled = false;
};

struct RecoveryResult {
  double optimal_test_loss = 0.0;  // eps* on the test set
  std::vector<FitRecord> fits;     // random seeds first, then plm start, then plm
  // Random-start summaries: mean and standard error over seeds, stall fraction.
  double fa_gap_mean = 0, fa_gap_se = 0, fa_erec_mean = 0, fa_erec_se = 0, fa_stall_fraction = 0;
  // The estimator "restarts ranked by training objective" over all factored fits.
  double fa_best_gap = 0, fa_best_erec = 0;
  double plm_gap = 0, plm_erec = 0, plm_erec_zero_sum = 0;
  PlmPenalty plm_penalty;                     // the penalty of the baseline fit
  std::vector<double> plm_validation_losses;  // one per plm_lambda_grid value
  double fa_lambda = 0;                       // the penalty of every factored fit
  std::vector<double> fa_validation_losses;   // one per fa_lambda_grid value
};

// The full pseudo-likelihood's penalty chosen by validation (above):
// lambda_h = lambda_W = each lambda of the grid. No test data and no
// knowledge of J are used. Writes the validation loss of every lambda to
// `losses` and, if `chosen_fit` is given, the model fitted on the held-in
// rows at the chosen penalty.
PlmPenalty choose_plm_penalty(const arma::imat& train, arma::uword C, const std::vector<double>& grid,
                              arma::uword holdout_every, const LbfgsOptions& lbfgs, std::vector<double>* losses,
                              PlmModel* chosen_fit = nullptr);

// Factored attention's lambda chosen by validation (above), one fit per
// lambda from the split of `held_in_plm` (the full pseudo-likelihood fitted
// on the held-in rows; o.lambda is ignored). Writes the validation loss of
// every lambda to `losses`.
double choose_factored_penalty(const arma::imat& train, arma::uword C, const std::vector<double>& grid,
                               arma::uword holdout_every, const FactoredFitOptions& o, const PlmModel& held_in_plm,
                               std::vector<double>* losses);

RecoveryResult evaluate_recovery(const arma::imat& train, const arma::imat& test, const PottsModel& truth,
                                 const RecoveryOptions& o, std::uint64_t seed);

}  // namespace potts
