// Fitting the coupling models of coupling_models.h: L-BFGS from one or more
// restarts (the strong-Wolfe variant or the lean one), and mini-batch SGD as
// lib/train trains the masked-language models.
//
// Tested by //lib/couplings:coupling_models_test.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include <armadillo>

#include "lib/couplings/coupling_models.h"
#include "lib/optim/lbfgs.h"

namespace potts {

struct CouplingRestart {
  double objective = 0.0;   // final training objective (data term + penalty)
  double train_loss = 0.0;  // data term only
  LbfgsStatus status = LbfgsStatus::kMaxIterations;
  int iterations = 0, evaluations = 0;
};

struct CouplingFit {
  arma::vec x;     // packed parameters of the kept restart
  arma::mat W, h;  // its couplings and fields
  double objective = 0.0, train_loss = 0.0;
  int best_restart = 0;
  std::vector<CouplingRestart> restarts;
};

// L-BFGS from every restart; keeps the lowest final training objective
// (never a contact score). The full form is convex: one restart from zero
// couplings suffices. Throws StageError (naming the restart) on non-finite
// values.
// `on_restart`, if set, is called with r before restart r starts (so that a
// caller can attribute options.on_iteration's calls to their restart).
// `variant`: lbfgs_minimize (strong-Wolfe line search; lib/optim/lbfgs.h) or
// lean_lbfgs_minimize (every vector allocated once; lib/optim/lean_lbfgs.h).
enum class LbfgsVariant { kStrongWolfe, kLean };
CouplingFit fit_couplings(const CouplingSpec& spec, const arma::imat& train, const arma::vec& weights,
                          const CouplingPenalty& penalty, const CouplingInit& init, const LbfgsOptions& options,
                          std::uint64_t seed, int restarts, const std::function<void(int)>& on_restart = {},
                          LbfgsVariant variant = LbfgsVariant::kStrongWolfe);

// Mini-batch stochastic gradient descent as lib/train runs the masked-
// language-model training of the paper's models (the single-head model's
// protocol on the family, for the ablations that start from it): each epoch
// a Fisher-Yates shuffle of the sequences from Rng(seed, streams::kBatches),
// batches of batch_size sequences in that order, the learning rate
// cosine-annealed per step from lr0 to 0 (train::cosine_learning_rate). Each
// step follows the batch's objective above times L, i.e. the loss summed over
// positions and averaged over (weighted) sequences as lib/train normalises
// it, so that lr0 means the same in both; the penalty, if any, is part of
// the objective (a decay of 2 L lambda per unit of lr). One restart, from
// coupling_initial_point(..., seed, 0). on_epoch(epoch, objective on every
// training sequence) after every `report_every` epochs and the last. Throws
// StageError (naming the epoch) if the objective stops being finite.
struct SgdOptions {
  int epochs = 500;
  arma::uword batch_size = 100;
  double lr0 = 0.1;
  int report_every = 25;
  std::function<void(int, double)> on_epoch;
};
CouplingFit fit_couplings_sgd(const CouplingSpec& spec, const arma::imat& train, const arma::vec& weights,
                              const CouplingPenalty& penalty, const CouplingInit& init, const SgdOptions& options,
                              std::uint64_t seed);

}  // namespace potts
