#include "lib/studies/recovery.h"

#include <cmath>
#include <string>
#include <utility>

#include "lib/core/error.h"
#include "lib/core/stats.h"
#include "lib/nn/mlm_model.h"

namespace potts {

namespace {

// The held-in and held-out rows of the validation (recovery.h), after
// checking the grid and the split.
struct Holdout {
  arma::imat fit, val;
};

Holdout holdout_split(const arma::imat& train, arma::uword holdout_every, const std::string& who) {
  if (holdout_every < 2 || train.n_rows < 2 * holdout_every)
    throw StageError(who + " validation: need holdout_every >= 2 and at least 2 * holdout_every training sequences");
  std::vector<arma::uword> fit_rows, val_rows;
  for (arma::uword k = 0; k < train.n_rows; ++k)
    (k % holdout_every == holdout_every - 1 ? val_rows : fit_rows).push_back(k);
  return {train.rows(arma::uvec(fit_rows)), train.rows(arma::uvec(val_rows))};
}

Holdout holdout_split(const arma::imat& train, const std::vector<double>& grid, arma::uword holdout_every,
                      const std::string& who) {
  if (grid.empty()) throw StageError(who + " validation: the lambda grid is empty");
  for (std::size_t k = 1; k < grid.size(); ++k)
    if (!(grid[k] > grid[k - 1])) throw StageError(who + " validation: the lambda grid must increase");
  return holdout_split(train, holdout_every, who);
}

}  // namespace

PlmPenalty choose_plm_penalty(const arma::imat& train, arma::uword C, const std::vector<double>& grid,
                              arma::uword holdout_every, const LbfgsOptions& lbfgs, std::vector<double>* losses,
                              PlmModel* chosen_fit) {
  const Holdout h = holdout_split(train, grid, holdout_every, "plm");
  PlmPenalty best;
  double best_loss = INFINITY;
  if (losses) losses->clear();
  for (double lambda : grid) {
    const PlmPenalty pen{lambda, lambda};
    PlmFit f = fit_plm(h.fit, C, pen, lbfgs);
    const double loss = plm_test_loss(f.model, h.val);
    if (losses) losses->push_back(loss);
    if (loss < best_loss) {
      best_loss = loss, best = pen;
      if (chosen_fit) *chosen_fit = std::move(f.model);
    }
  }
  return best;
}

double choose_factored_penalty(const arma::imat& train, arma::uword C, const std::vector<double>& grid,
                               arma::uword holdout_every, const FactoredFitOptions& o, const PlmModel& held_in_plm,
                               std::vector<double>* losses) {
  const Holdout h = holdout_split(train, grid, holdout_every, "factored attention");
  const nn::SequenceSet fit = nn::to_sequence_set(h.fit, C, "held-in training sequences");
  const nn::SequenceSet val = nn::to_sequence_set(h.val, C, "held-out training sequences");
  arma::mat A0, V0;
  split_plm_into_factored(held_in_plm, A0, V0);
  double best = grid.front(), best_loss = INFINITY;
  if (losses) losses->clear();
  for (double lambda : grid) {
    FactoredFitOptions fo = o;
    fo.lambda = lambda;
    const FactoredFit f = fit_factored_attention_from(fit, C, A0, V0, fo);
    const double loss = factored_test_loss(f.A, f.V, val, C);
    if (losses) losses->push_back(loss);
    if (loss < best_loss) best_loss = loss, best = lambda;
  }
  return best;
}

namespace {

// The PLM's penalty and factored attention's lambda, each given or chosen
// by validation on the training set (into r).
void choose_penalties(const arma::imat& train, arma::uword C, const RecoveryOptions& o, RecoveryResult& r) {
  PlmModel held_in_plm;
  r.plm_penalty = o.plm_lambda_grid.empty() ? o.plm_penalty
                                            : choose_plm_penalty(train, C, o.plm_lambda_grid, o.holdout_every,
                                                                 o.plm_lbfgs, &r.plm_validation_losses, &held_in_plm);
  r.fa_lambda = o.factored.lambda;
  if (!o.fa_lambda_grid.empty()) {
    if (o.plm_lambda_grid.empty()) {
      held_in_plm =
          fit_plm(holdout_split(train, o.holdout_every, "factored attention").fit, C, r.plm_penalty, o.plm_lbfgs).model;
    }
    r.fa_lambda = choose_factored_penalty(train, C, o.fa_lambda_grid, o.holdout_every, o.factored, held_in_plm,
                                          &r.fa_validation_losses);
  }
  if (!std::isfinite(r.fa_lambda) || r.fa_lambda < 0)
    throw StageError("recovery: factored attention's lambda must be finite and non-negative (or chosen by validation)");
}

// The full pseudo-likelihood baseline's record.
FitRecord plm_record(const PlmFit& plm, const PottsModel& truth, const arma::imat& test, double optimal) {
  FitRecord p;
  p.kind = "plm";
  p.train_objective = plm.optimiser.value;
  p.train_loss = plm.train_loss;
  p.test_loss = plm_test_loss(plm.model, test);
  p.gap = p.test_loss - optimal;
  p.reconstruction_error =
      reconstruction_error(truth.couplings_J, project_couplings_onto(plm.model, truth.colour_similarity_U));
  p.reconstruction_error_zero_sum =
      reconstruction_error(truth.couplings_J, project_couplings_onto_zero_sum(plm.model, truth.colour_similarity_U));
  p.status = plm.optimiser.status;
  p.iterations = plm.optimiser.iterations;
  return p;
}

// The factored fits' summary: stalls (a training objective above the best
// by more than the tolerance), the random starts' mean gap and e_rec, the
// best restart's; then the PLM's, appended last.
void summarise_fits(const RecoveryOptions& o, const FitRecord& p, RecoveryResult& r) {
  double best = r.fits[0].train_objective;
  size_t best_k = 0;
  for (size_t k = 1; k < r.fits.size(); ++k)
    if (r.fits[k].train_objective < best) best = r.fits[k].train_objective, best_k = k;
  std::vector<double> gaps, erecs;
  int stalls = 0;
  for (auto& f : r.fits) {
    f.stalled = f.train_objective > best + o.stall_tolerance;
    if (f.kind != "factored_random") continue;
    gaps.push_back(f.gap);
    erecs.push_back(f.reconstruction_error);
    stalls += f.stalled;
  }
  const MeanSe gap = mean_se(gaps), erec = mean_se(erecs);
  r.fa_gap_mean = gap.mean, r.fa_gap_se = gap.se;
  r.fa_erec_mean = erec.mean, r.fa_erec_se = erec.se;
  r.fa_stall_fraction = double(stalls) / double(o.seeds);
  r.fa_best_gap = r.fits[best_k].gap;
  r.fa_best_erec = r.fits[best_k].reconstruction_error;
  r.plm_gap = p.gap;
  r.plm_erec = p.reconstruction_error;
  r.plm_erec_zero_sum = p.reconstruction_error_zero_sum;
  r.fits.push_back(p);
}

}  // namespace

RecoveryResult evaluate_recovery(const arma::imat& train, const arma::imat& test, const PottsModel& truth,
                                 const RecoveryOptions& o, std::uint64_t seed) {
  const arma::uword C = truth.C();
  if (o.seeds < 1) throw StageError("recovery: seeds must be at least 1");
  const nn::SequenceSet tr = nn::to_sequence_set(train, C, "training set");
  const nn::SequenceSet te = nn::to_sequence_set(test, C, "test set");
  RecoveryResult r;
  r.optimal_test_loss = optimal_test_loss(truth, test);
  choose_penalties(train, C, o, r);
  // Full pseudo-likelihood baseline (convex; from zero).
  PlmFit plm = fit_plm(train, C, r.plm_penalty, o.plm_lbfgs);
  const FitRecord p = plm_record(plm, truth, test, r.optimal_test_loss);

  auto record = [&](const FactoredFit& f, const std::string& kind, int s) {
    FitRecord x;
    x.kind = kind;
    x.seed = s;
    x.train_objective = f.objective;
    x.train_loss = f.train_loss;
    x.test_loss = factored_test_loss(f.A, f.V, te, C);
    x.gap = x.test_loss - r.optimal_test_loss;
    x.reconstruction_error = reconstruction_error(truth.couplings_J, f.A);
    x.status = f.optimiser.status;
    x.iterations = f.optimiser.iterations;
    return x;
  };
  FactoredFitOptions fo = o.factored;
  fo.lambda = r.fa_lambda;
  fo.init = "random";
  fo.restarts = 1;
  for (int s = 0; s < o.seeds; ++s)
    r.fits.push_back(record(fit_factored_attention(tr, C, fo, seed * 1000 + s), "factored_random", s));
  if (o.plm_start) {
    // The plm start reuses the baseline fit above (same data, same penalty).
    arma::mat A0, V0;
    split_plm_into_factored(plm.model, A0, V0);
    FactoredFitOptions fp = o.factored;
    fp.lambda = r.fa_lambda;
    r.fits.push_back(record(fit_factored_attention_from(tr, C, A0, V0, fp), "factored_plm_start", 0));
  }
  summarise_fits(o, p, r);
  return r;
}

}  // namespace potts
